//! The canonical values facts are compared by: exact decimals, fractions, dates and
//! tokens, each with the class of quantity a figure names.
//!
//! Exact, never floating point: `2.5 billion`, `2,500,000,000` and `2.5bn` are one
//! [`Dec`] (mantissa 25, exponent 8), `3.40 percent` and `3.4%` one value of class
//! [`Class::Percent`], and `8.9%` is not `8.94%`.

use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A hash map with [`Fx`]: the keys are a page's figures and a draft's names, hashed
/// once per figure or word of every page, where SipHash was a tenth of the check.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<Fx>>;

/// The multiply-and-rotate hash of rustc (`FxHasher`): fast on small keys. Not
/// resistant to chosen collisions, which would only slow one `verify` down.
#[derive(Clone, Copy, Default)]
pub(crate) struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl Fx {
    fn add(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// An exact decimal `±m × 10^e`, normalized: `m` has no trailing zero (and zero is
/// `0 × 10^0`, unsigned), so equal numbers are equal values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Dec {
    pub neg: bool,
    pub m: u64,
    pub e: i16,
}

impl Dec {
    /// From a run of ASCII digits (the integer and fraction parts run together) and the
    /// number of them that are fraction digits; `None` past 19 significant digits.
    pub fn from_digits(digits: &[u8], frac: usize) -> Option<Dec> {
        let digits = {
            let lead = digits.iter().take_while(|&&d| d == b'0').count();
            &digits[lead..]
        };
        if digits.len() > 19 {
            return None;
        }
        let mut m: u64 = 0;
        for &d in digits {
            m = m * 10 + u64::from(d - b'0');
        }
        Some(
            Dec {
                neg: false,
                m,
                e: -(frac as i16),
            }
            .normalized(),
        )
    }

    pub fn int(n: u64) -> Dec {
        Dec {
            neg: false,
            m: n,
            e: 0,
        }
        .normalized()
    }

    fn normalized(mut self) -> Dec {
        if self.m == 0 {
            return Dec {
                neg: false,
                m: 0,
                e: 0,
            };
        }
        while self.m.is_multiple_of(10) {
            self.m /= 10;
            self.e += 1;
        }
        self
    }

    /// Times `10^p`.
    pub fn scaled(self, p: i16) -> Dec {
        Dec {
            e: self.e.saturating_add(p),
            ..self
        }
        .normalized()
    }

    pub fn negated(self) -> Dec {
        Dec {
            neg: self.m != 0 && !self.neg,
            ..self
        }
    }

    pub fn abs(self) -> Dec {
        Dec { neg: false, ..self }
    }

    /// The integer it is, when it is one and fits.
    pub fn as_int(self) -> Option<u64> {
        if self.neg || self.e < 0 {
            return None;
        }
        let mut n = self.m;
        for _ in 0..self.e {
            n = n.checked_mul(10)?;
        }
        Some(n)
    }

    /// The scales a page's figure of this size lets a sentence speak of in words
    /// (`millions of`, `hundreds of thousands`), as powers of ten: the thousand group it
    /// is in (3, 6, 9, 12), and 2 too when its leading digits are hundreds of that group.
    pub fn magnitudes(self) -> impl Iterator<Item = i16> {
        // Digits before the decimal point, less one: floor(log10(|v|)).
        let digits = self.m.checked_ilog10().map_or(0, |d| d as i16 + 1);
        let power = digits + self.e - 1;
        let group = (power >= 3).then_some(power / 3 * 3);
        let hundreds = (self.m != 0 && power >= 2 && power % 3 == 2).then_some(2);
        group.into_iter().chain(hundreds)
    }

    pub fn to_f64(self) -> f64 {
        let v = self.m as f64 * 10f64.powi(i32::from(self.e));
        if self.neg { -v } else { v }
    }
}

/// What a figure counts. A sentence's figure of a class is supported only by a page's
/// figure of the same value in a class it accepts ([`Class::accepts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Class {
    /// A number with no unit this check reads (a count, a year, `10 km`, `14th`).
    Bare,
    /// `9%`, `9 percent`, `9 per cent`.
    Percent,
    /// Percentage points, and basis points as hundredths of them.
    Points,
    /// An amount with a currency sign, code or name.
    Money,
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
    /// Degrees of no scale said.
    Degrees,
    /// An ordinal: `15th`, `15e`, `XV` or `15` before a word for century (`15.
    /// Jahrhundert`, `15 века`, `15世紀`), and on a page `fifteenth`. A sentence's
    /// `15th century` needs one, not any 15 on the page.
    Ordinal,
}

impl Class {
    /// The bit of this class in an index's mask.
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// The classes on a page that support a sentence's figure of this class: a bare
    /// number is supported by the same number of any class but an ordinal; an ordinal
    /// by an ordinal only; a percentage only by a
    /// percentage (or percentage points), since small bare numbers are everywhere on a
    /// page and would support any drifted percentage; money by money or a bare amount;
    /// a temperature by the same scale, unsaid degrees, or a bare number.
    pub fn accepts(self) -> u8 {
        use Class::*;
        match self {
            // Not by an ordinal: `three` is not the page's `third`.
            Bare => !Ordinal.bit(),
            Percent | Points => Percent.bit() | Points.bit(),
            Money => Money.bit() | Bare.bit(),
            Celsius => Celsius.bit() | Degrees.bit() | Bare.bit(),
            Fahrenheit => Fahrenheit.bit() | Degrees.bit() | Bare.bit(),
            Degrees => Celsius.bit() | Fahrenheit.bit() | Degrees.bit() | Bare.bit(),
            Ordinal => Ordinal.bit(),
        }
    }
}

/// A calendar date as precise as it was written: `0` for a part not given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Date {
    pub y: u16,
    pub m: u8,
    pub d: u8,
}

impl Date {
    /// The same date less precise, as a page's date supports them: the month of a day,
    /// the day without its year, the year of a month.
    pub fn generalizations(self) -> impl Iterator<Item = Date> {
        let Date { y, m, d } = self;
        let month = (d != 0 && y != 0).then_some(Date { y, m, d: 0 });
        let day = (d != 0 && y != 0).then_some(Date { y: 0, m, d });
        month.into_iter().chain(day)
    }

    /// Days since a fixed point, roughly: for "closest".
    pub fn ordinal(self) -> f64 {
        f64::from(self.y) * 372.0 + f64::from(self.m) * 31.0 + f64::from(self.d)
    }
}

/// A canonical value, as indexed and looked up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Val {
    Num(Dec),
    /// A fraction `n/d` in lowest terms.
    Ratio(u64, u64),
    Date(Date),
    /// A scale said in words with no number (`millions of`, `thousands`): its power
    /// of ten. A page has it when it says the word, or has a figure of that size.
    Scale(i16),
    /// A figure compared as written, digits and separators: a time (`10:30`), a version
    /// (`1.2.3`), a number past 19 digits. A hash of its text.
    Token(u64),
}

impl Val {
    pub fn ratio(n: u64, d: u64) -> Val {
        let g = gcd(n, d).max(1);
        Val::Ratio(n / g, d / g)
    }

    pub fn token(text: &str) -> Val {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        Val::Token(h.finish())
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// A value with the class of quantity it was written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Reading {
    pub val: Val,
    pub class: Class,
}

/// The readings of one written figure: usually one; two for a separator that reads
/// either way (`1.000`, `3,400`), a unit that is either a scale or a measure (`2.5m`),
/// or a date written day and month either way round (`03/04/2024`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Readings {
    items: [Option<Reading>; Readings::MAX],
}

impl Readings {
    pub const MAX: usize = 6;

    pub fn none() -> Readings {
        Readings {
            items: [None; Readings::MAX],
        }
    }

    pub fn one(r: Reading) -> Readings {
        let mut out = Readings::none();
        out.push(r);
        out
    }

    /// Adds `r` unless it is there or the list is full.
    pub fn push(&mut self, r: Reading) {
        if self.iter().any(|x| x == r) {
            return;
        }
        if let Some(slot) = self.items.iter_mut().find(|s| s.is_none()) {
            *slot = Some(r);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = Reading> + '_ {
        self.items.iter().flatten().copied()
    }

    pub fn is_empty(&self) -> bool {
        self.items[0].is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_normalized() {
        let d = |s: &[u8], f| Dec::from_digits(s, f).unwrap();
        assert_eq!(d(b"340", 2), d(b"34", 1));
        assert_eq!(d(b"2500000000", 0), d(b"25", 1).scaled(9));
        assert_eq!(d(b"000", 0), Dec::int(0));
        assert_ne!(d(b"894", 2), d(b"89", 1));
        assert_eq!(Dec::int(1439).as_int(), Some(1439));
        assert_eq!(d(b"25", 1).as_int(), None);
        assert!(Dec::from_digits(b"12345678901234567890", 0).is_none());
        assert_eq!(Val::ratio(2, 6), Val::Ratio(1, 3));
        let mags = |d: Dec| d.magnitudes().collect::<Vec<_>>();
        assert_eq!(mags(d(b"25", 1).scaled(9)), [9]);
        assert_eq!(mags(Dec::int(250_000)), [3, 2]);
        assert_eq!(mags(Dec::int(300)), [2]);
        assert_eq!(mags(Dec::int(4000)), [3]);
        assert_eq!(mags(Dec::int(42)), Vec::<i16>::new());
        assert_eq!(mags(d(b"12", 3)), Vec::<i16>::new());
    }
}
