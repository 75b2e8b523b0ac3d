//! The character folds of the page keyings (`Keying::Page`, `Seen` and `Marked`): what
//! changes no letter or digit a reader sees. NFC, so that `e` + U+0301 and `é` are one
//! character; full-width ASCII as ASCII and the `ĳ` ligature as `ij` (the Latin
//! ligatures `ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ` already fold by case folding). Not blanket NFKC: it turns
//! `10⁶` into `106`, a digit the page does not have.

use std::borrow::Cow;

use icu_normalizer::ComposingNormalizerBorrowed;
use icu_normalizer::properties::CanonicalCombiningClassMapBorrowed;

/// Full-width ASCII (U+FF01–U+FF5E) as the ASCII it stands for.
pub(super) fn narrow(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

/// Characters that join the one before them under NFC although they are starters
/// (canonical combining class 0, NFC_Quick_Check = Maybe): Hangul medial vowels and final
/// consonants, and the vowel signs of a few Indic scripts.
fn composes_with_previous(c: char) -> bool {
    matches!(
        u32::from(c),
        0x0B3E
            | 0x0B56
            | 0x0B57
            | 0x0BBE
            | 0x0BD7
            | 0x0CC2
            | 0x0CD5
            | 0x0CD6
            | 0x0D3E
            | 0x0D57
            | 0x0DCF
            | 0x0DDF
            | 0x102E
            | 0x1161..=0x1175
            | 0x11A8..=0x11C2
            | 0x1B35
            | 0x11127
            | 0x1133E
            | 0x11357
            | 0x114B0
            | 0x114BA
            | 0x114BD
            | 0x115AF
            | 0x11930
    )
}

/// NFC over a character stream: the pass gathers a character and those that
/// [`Nfc::joins`] to it, and composes the run.
pub(super) struct Nfc {
    nfc: ComposingNormalizerBorrowed<'static>,
    ccc: CanonicalCombiningClassMapBorrowed<'static>,
}

impl Nfc {
    pub fn new() -> Self {
        Nfc {
            nfc: ComposingNormalizerBorrowed::new_nfc(),
            ccc: CanonicalCombiningClassMapBorrowed::new(),
        }
    }

    /// Whether `next` belongs to the same NFC unit as the character before it.
    pub fn joins(&self, next: char) -> bool {
        !next.is_ascii()
            && (self.ccc.get32_u8(u32::from(next)) != 0 || composes_with_previous(next))
    }

    /// `text` in NFC.
    pub fn compose<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if text.is_ascii() {
            Cow::Borrowed(text)
        } else {
            self.nfc.normalize(text)
        }
    }
}
