//! The `cite` binary: hands the command line to the library and exits with its code.

use std::panic;

fn main() {
    // A panic is a bug, but the user still gets one line and exit 1, never a backtrace.
    panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        eprintln!(
            "error: internal error ({what}) — the ledger may be damaged; run `cite audit` and report this"
        );
    }));
    let args: Vec<_> = std::env::args_os().collect();
    let code = panic::catch_unwind(|| cite::cli::run(args)).unwrap_or(1);
    std::process::exit(code);
}
