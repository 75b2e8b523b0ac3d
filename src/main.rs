//! The `cite` binary: hands the command line to the library and exits with its code.

use std::panic;

fn main() {
    // Panics are caught and reported as one `error:` line by `cli::run`; the default hook
    // would print a backtrace hint first.
    panic::set_hook(Box::new(|_| {}));
    let args: Vec<_> = std::env::args_os().collect();
    let code = panic::catch_unwind(|| cite::cli::run(args)).unwrap_or_else(|_| {
        eprintln!("error: internal error — run `cite audit`, and report this if it passes");
        1
    });
    std::process::exit(code);
}
