//! The words that make a number a figure of some kind: month names, scale words, the
//! words for percent, points and currencies, and number words. Each table takes a word
//! already lower-cased.
//!
//! Month names and scale words come in the languages of the pages the check is tried
//! on (English, German, French, Spanish, Italian, Portuguese, Dutch, Russian, Greek);
//! number words are English in a sentence, and on a page also the small ones of those
//! other languages, so an English sentence about a German page's "Achtzehn" finds 18.

/// The month a word names (`march`, `mar`, `märz`, `марта`, `μαρτίου`), 1–12.
pub(crate) fn month(w: &str) -> Option<u8> {
    let w = w.strip_suffix('.').unwrap_or(w);
    Some(match w {
        "january" | "jan" | "januar" | "jänner" | "janvier" | "enero" | "gennaio" | "janeiro"
        | "januari" | "janv" | "ene" | "genn" => 1,
        "february" | "feb" | "febr" | "februar" | "février" | "fevrier" | "févr" | "febrero"
        | "febbraio" | "fevereiro" | "februari" | "fev" => 2,
        "march" | "mar" | "märz" | "maerz" | "mars" | "marzo" | "março" | "maart" | "mrz" => 3,
        "april" | "apr" | "avril" | "abril" | "aprile" | "abr" | "avr" => 4,
        "may" | "mai" | "mayo" | "maggio" | "maio" | "mei" | "mag" => 5,
        "june" | "jun" | "juni" | "juin" | "junio" | "giugno" | "junho" | "giu" => 6,
        "july" | "jul" | "juli" | "juillet" | "julio" | "luglio" | "julho" | "lug" | "juil" => 7,
        "august" | "aug" | "août" | "aout" | "agosto" | "augustus" | "ago" => 8,
        "september" | "sep" | "sept" | "septembre" | "septiembre" | "setiembre" | "settembre"
        | "setembro" | "set" => 9,
        "october" | "oct" | "oktober" | "octobre" | "octubre" | "ottobre" | "outubro" | "okt"
        | "ott" | "out" => 10,
        "november" | "nov" | "novembre" | "noviembre" | "novembro" => 11,
        "december" | "dec" | "dezember" | "décembre" | "decembre" | "diciembre" | "dicembre"
        | "dezembro" | "dez" | "déc" | "dic" => 12,
        _ => return month_other_script(w),
    })
}

/// Russian and Greek month names, by stem: they decline (`март`, `марта`, `марте`).
fn month_other_script(w: &str) -> Option<u8> {
    const STEMS: [(&str, u8); 24] = [
        ("январ", 1),
        ("феврал", 2),
        ("март", 3),
        ("апрел", 4),
        ("ма", 5),
        ("июн", 6),
        ("июл", 7),
        ("август", 8),
        ("сентябр", 9),
        ("октябр", 10),
        ("ноябр", 11),
        ("декабр", 12),
        ("ιανουαρ", 1),
        ("φεβρουαρ", 2),
        ("μαρτ", 3),
        ("απριλ", 4),
        ("μαΐ", 5),
        ("ιουν", 6),
        ("ιουλ", 7),
        ("αυγουστ", 8),
        ("σεπτεμβρ", 9),
        ("οκτωβρ", 10),
        ("νοεμβρ", 11),
        ("δεκεμβρ", 12),
    ];
    if w.chars().next().is_none_or(|c| c.is_ascii()) {
        return None;
    }
    // `май`, `мая`, `мае` only: `ма` starts many words.
    if w.starts_with("ма") && !w.starts_with("март") {
        return matches!(w, "май" | "мая" | "мае").then_some(5);
    }
    STEMS
        .iter()
        .find(|(stem, _)| w.starts_with(stem))
        .map(|&(_, m)| m)
}

/// The power of ten a scale word multiplies by, spaced from its number
/// (`2.5 billion`, `2,5 Mrd.`, `3 млн`). German `Billion` is 10^12: both readings.
pub(crate) fn scale_word(w: &str) -> Option<(i16, Option<i16>)> {
    let w = w.strip_suffix('.').unwrap_or(w);
    Some(match w {
        "hundred" | "hundreds" => (2, None),
        "thousand" | "thousands" | "tausend" | "mille" | "mil" | "mila" | "tsd" | "thsd"
        | "тыс" | "тысяч" | "тысячи" | "тысяча" | "χιλιάδες" => {
            (3, None)
        }
        "lakh" | "lakhs" => (5, None),
        "million"
        | "millions"
        | "mn"
        | "mln"
        | "mio"
        | "millionen"
        | "millón"
        | "millon"
        | "millones"
        | "milione"
        | "milioni"
        | "milhão"
        | "milhões"
        | "miljoen"
        | "млн"
        | "миллион"
        | "миллиона"
        | "миллионов"
        | "εκατομμύρια"
        | "εκατ" => (6, None),
        "crore" | "crores" => (7, None),
        "billion"
        | "billions"
        | "bn"
        | "bln"
        | "mrd"
        | "milliarde"
        | "milliarden"
        | "milliard"
        | "milliards"
        | "miliardo"
        | "miliardi"
        | "mil-millones"
        | "bilhão"
        | "bilhões"
        | "miljard"
        | "млрд"
        | "миллиард"
        | "миллиарда"
        | "миллиардов"
        | "δισεκατομμύρια"
        | "δισ" => (9, Some(12)),
        "trillion"
        | "trillions"
        | "tn"
        | "trn"
        | "billionen"
        | "billón"
        | "billones"
        | "trilhão"
        | "trilhões"
        | "трлн"
        | "триллион"
        | "триллиона"
        | "триллионов" => (12, None),
        _ => return None,
    })
    .map(|(p, other)| match w {
        // Only German `Billion` (and English `billion` on a German page) is ambiguous.
        "billion" | "billions" => (p, other),
        _ => (p, None),
    })
}

/// The power of ten of a plural scale word said with no number (`millions of`).
pub(crate) fn scale_plural(w: &str) -> Option<i16> {
    Some(match w {
        "hundreds" => 2,
        "thousands" => 3,
        "millions" => 6,
        "billions" => 9,
        "trillions" => 12,
        _ => return None,
    })
}

/// Every word [`english_number`], [`foreign_number`], [`scale_plural`] and
/// [`ordinal_word`] know, those that open a number in words (`half`, `quarter`, `a`),
/// and the months [`month`] knows written in ASCII: what [`may_open`] lets through. A
/// test reads this file and checks that every word those tables match is here.
const OPENERS: &[&str] = &[
    "half",
    "quarter",
    "a",
    "an",
    "hundreds",
    "thousands",
    "millions",
    "billions",
    "trillions",
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
    "hundred",
    "dozen",
    "thousand",
    "million",
    "billion",
    "trillion",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
    "thirtieth",
    "fortieth",
    "fiftieth",
    "hundredth",
    "zwei",
    "deux",
    "dos",
    "due",
    "dois",
    "twee",
    "два",
    "две",
    "δύο",
    "drei",
    "trois",
    "tres",
    "tre",
    "três",
    "drie",
    "три",
    "τρία",
    "τρεις",
    "vier",
    "quatre",
    "cuatro",
    "quattro",
    "quatro",
    "четыре",
    "τέσσερα",
    "fünf",
    "cinq",
    "cinco",
    "cinque",
    "vijf",
    "пять",
    "πέντε",
    "sechs",
    "seis",
    "sei",
    "zes",
    "шесть",
    "έξι",
    "sieben",
    "sept",
    "siete",
    "sette",
    "sete",
    "zeven",
    "семь",
    "επτά",
    "acht",
    "huit",
    "ocho",
    "otto",
    "oito",
    "восемь",
    "οκτώ",
    "neun",
    "neuf",
    "nueve",
    "nove",
    "negen",
    "девять",
    "εννέα",
    "zehn",
    "dix",
    "diez",
    "dieci",
    "dez",
    "tien",
    "десять",
    "δέκα",
    "elf",
    "onze",
    "once",
    "undici",
    "одиннадцать",
    "zwölf",
    "douze",
    "doce",
    "dodici",
    "twaalf",
    "двенадцать",
    "dreizehn",
    "treize",
    "trece",
    "tredici",
    "vierzehn",
    "quatorze",
    "catorce",
    "quattordici",
    "fünfzehn",
    "quinze",
    "quince",
    "quindici",
    "sechzehn",
    "seize",
    "dieciséis",
    "sedici",
    "siebzehn",
    "dix-sept",
    "diecisiete",
    "diciassette",
    "achtzehn",
    "dix-huit",
    "dieciocho",
    "diciotto",
    "neunzehn",
    "dix-neuf",
    "diecinueve",
    "diciannove",
    "zwanzig",
    "vingt",
    "veinte",
    "venti",
    "vinte",
    "двадцать",
    "dreißig",
    "trente",
    "treinta",
    "trenta",
    "тридцать",
    "vierzig",
    "quarante",
    "cuarenta",
    "quaranta",
    "fünfzig",
    "cinquante",
    "cincuenta",
    "cinquanta",
    "hundert",
    "cent",
    "cien",
    "cento",
    "сто",
    "tausend",
    "mille",
    "тысяча",
    // Months, which open a date when a number follows them.
    "january",
    "jan",
    "januar",
    "janvier",
    "enero",
    "gennaio",
    "janeiro",
    "januari",
    "janv",
    "ene",
    "genn",
    "february",
    "feb",
    "febr",
    "februar",
    "fevrier",
    "febrero",
    "febbraio",
    "fevereiro",
    "februari",
    "fev",
    "march",
    "mar",
    "maerz",
    "mars",
    "marzo",
    "maart",
    "mrz",
    "april",
    "apr",
    "avril",
    "abril",
    "aprile",
    "abr",
    "avr",
    "may",
    "mai",
    "mayo",
    "maggio",
    "maio",
    "mei",
    "mag",
    "june",
    "jun",
    "juni",
    "juin",
    "junio",
    "giugno",
    "junho",
    "giu",
    "july",
    "jul",
    "juli",
    "juillet",
    "julio",
    "luglio",
    "julho",
    "lug",
    "juil",
    "august",
    "aug",
    "aout",
    "agosto",
    "augustus",
    "ago",
    "september",
    "sep",
    "sept",
    "septembre",
    "septiembre",
    "setiembre",
    "settembre",
    "setembro",
    "set",
    "october",
    "oct",
    "oktober",
    "octobre",
    "octubre",
    "ottobre",
    "outubro",
    "okt",
    "ott",
    "out",
    "november",
    "nov",
    "novembre",
    "noviembre",
    "novembro",
    "december",
    "dec",
    "dezember",
    "decembre",
    "diciembre",
    "dicembre",
    "dezembro",
    "dez",
    "dic",
];

/// For each first byte, a bit per byte length (31 for longer) of the [`OPENERS`].
const OPENER_LENGTHS: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < OPENERS.len() {
        let w = OPENERS[i].as_bytes();
        let len = if w.len() > 31 { 31 } else { w.len() };
        t[w[0] as usize] |= 1 << len;
        i += 1;
    }
    t
};

/// Whether a lower-cased word may open a number in words, a scale said alone, an
/// ordinal or a date (`twenty`, `a hundred`, `half a percentage point`, `millions`,
/// `fifteenth`, `March`, and on a page `zwei`): one look at a table, where most words of
/// a page stop.
#[cfg(test)]
pub(crate) fn may_open(w: &str) -> bool {
    w.as_bytes()
        .first()
        .is_some_and(|&b| may_open_bytes(b, w.len()))
}

/// [`may_open`] of a lower-cased word of `len` bytes that starts with byte `first`.
pub(crate) fn may_open_bytes(first: u8, len: usize) -> bool {
    OPENER_LENGTHS[usize::from(first)] & (1 << len.min(31)) != 0
}

/// The power of ten a scale suffix glued to its number multiplies by (`2.5bn`, `5k`,
/// `100万`); `m` is a scale or metres, so it reads both ways (`Some(0)` second).
pub(crate) fn scale_suffix(w: &str) -> Option<(i16, Option<i16>)> {
    Some(match w {
        "k" | "K" => (3, None),
        "m" | "M" => (6, Some(0)),
        "mn" | "mln" | "MM" | "mio" | "Mio" => (6, None),
        "b" | "B" | "bn" | "Bn" | "BN" | "bln" | "mrd" | "Mrd" => (9, None),
        "t" | "T" => (12, Some(0)),
        "tn" | "trn" | "Tn" => (12, None),
        _ => return None,
    })
}

/// The power of ten of a CJK scale character (`万` is 10^4).
pub(crate) fn cjk_scale(c: char) -> Option<i16> {
    Some(match c {
        '十' => 1,
        '百' => 2,
        '千' | '천' => 3,
        '万' | '萬' | '만' => 4,
        '億' | '亿' | '억' => 8,
        '兆' | '조' => 12,
        _ => return None,
    })
}

/// The kind of a CJK numeral: a digit, a multiplier within a group of four digits
/// (`十百千`), or one of a group (`万億兆`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Numeral {
    Digit,
    Small,
    Big,
}

/// The value of a CJK numeral character, and its kind.
pub(crate) fn cjk_numeral(c: char) -> Option<(u64, Numeral)> {
    use Numeral::*;
    Some(match c {
        '〇' | '零' => (0, Digit),
        '一' => (1, Digit),
        '二' | '两' | '兩' => (2, Digit),
        '三' => (3, Digit),
        '四' => (4, Digit),
        '五' => (5, Digit),
        '六' => (6, Digit),
        '七' => (7, Digit),
        '八' => (8, Digit),
        '九' => (9, Digit),
        '十' => (10, Small),
        '百' => (100, Small),
        '千' => (1_000, Small),
        '万' | '萬' => (10_000, Big),
        '億' | '亿' => (100_000_000, Big),
        '兆' => (1_000_000_000_000, Big),
        _ => return None,
    })
}

/// What a word after a number says of its class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnitWord {
    Percent,
    /// `percent` as the first of two words (`per cent`, `pour cent`, `por ciento`).
    Per,
    /// `percentage`, `basis`: the next word should be `point(s)`.
    PointsOf(i16),
    /// `bp`, `bps`, `Basispunkte`: points at 10^-2.
    Points(i16),
    Money,
    Degrees,
}

pub(crate) fn unit_word(w: &str) -> Option<UnitWord> {
    use UnitWord::*;
    Some(match w {
        "percent" | "pct" | "prozent" | "procent" | "percento" | "porcentaje" | "pourcent"
        | "προσοστό" | "τοις" | "процент" | "процента" | "процентов" | "퍼센트" | "パーセント" => {
            Percent
        }
        "per" | "pour" | "por" | "pro" => Per,
        "percentage" | "percent-age" => PointsOf(0),
        "basis" => PointsOf(-2),
        "pp"
        | "ppt"
        | "ppts"
        | "prozentpunkte"
        | "prozentpunkt"
        | "procentpunten"
        | "процентных"
        | "п.п" => Points(0),
        "bp" | "bps" | "basispunkte" | "basispunkt" | "basispunkten" | "базисных" | "базисного"
        | "bps." => Points(-2),
        "dollars" | "dollar" | "usd" | "eur" | "euros" | "euro" | "gbp" | "pounds" | "yen"
        | "jpy" | "yuan" | "rmb" | "cny" | "chf" | "francs" | "rupees" | "inr" | "won" | "krw"
        | "rubles" | "roubles" | "рублей" | "рубля" | "рубль" | "aud" | "cad" | "cents"
        | "pesos" | "reais" | "lire" | "dirhams" | "riyals" | "円" | "元" | "원" => Money,
        "degrees" | "degree" | "grad" | "degrés" | "grados" | "gradi" | "градусов" | "градуса" => {
            Degrees
        }
        _ => return None,
    })
}

/// Whether a word names a currency before its amount (`USD 5`, `Rs 100`).
pub(crate) fn currency_before(w: &str) -> bool {
    matches!(
        w,
        "usd"
            | "eur"
            | "gbp"
            | "jpy"
            | "chf"
            | "cny"
            | "rmb"
            | "inr"
            | "rs"
            | "aud"
            | "cad"
            | "krw"
    )
}

/// Currency signs.
pub(crate) fn currency_sign(c: char) -> bool {
    matches!(
        c,
        '$' | '€'
            | '£'
            | '¥'
            | '₹'
            | '₩'
            | '₽'
            | '₺'
            | '₴'
            | '₪'
            | '₦'
            | '₱'
            | '฿'
            | '￥'
            | '＄'
    )
}

/// Connectors of a range or a pair (`85–90`, `2 to 3%`, `zwischen 2 und 3`).
pub(crate) fn range_word(w: &str) -> bool {
    matches!(
        w,
        "to" | "and"
            | "or"
            | "through"
            | "till"
            | "until"
            | "bis"
            | "und"
            | "oder"
            | "à"
            | "a"
            | "al"
            | "et"
            | "y"
            | "e"
            | "ou"
            | "o"
            | "tot"
            | "en"
            | "до"
            | "и"
            | "или"
            | "έως"
            | "και"
    )
}

/// The value of an English number word, and whether it multiplies what comes before it
/// (`hundred`, `thousand`, …).
pub(crate) fn english_number(w: &str) -> Option<(u64, bool)> {
    Some(match w {
        "zero" => (0, false),
        "one" => (1, false),
        "two" => (2, false),
        "three" => (3, false),
        "four" => (4, false),
        "five" => (5, false),
        "six" => (6, false),
        "seven" => (7, false),
        "eight" => (8, false),
        "nine" => (9, false),
        "ten" => (10, false),
        "eleven" => (11, false),
        "twelve" => (12, false),
        "thirteen" => (13, false),
        "fourteen" => (14, false),
        "fifteen" => (15, false),
        "sixteen" => (16, false),
        "seventeen" => (17, false),
        "eighteen" => (18, false),
        "nineteen" => (19, false),
        "twenty" => (20, false),
        "thirty" => (30, false),
        "forty" => (40, false),
        "fifty" => (50, false),
        "sixty" => (60, false),
        "seventy" => (70, false),
        "eighty" => (80, false),
        "ninety" => (90, false),
        "hundred" => (100, true),
        "dozen" => (12, true),
        "thousand" => (1_000, true),
        "million" => (1_000_000, true),
        "billion" => (1_000_000_000, true),
        "trillion" => (1_000_000_000_000, true),
        _ => return None,
    })
}

/// Small number words of the other languages, read on pages only (`due`, `die`, `elf`
/// are English words too, so a sentence never reads them as numbers).
pub(crate) fn foreign_number(w: &str) -> Option<u64> {
    Some(match w {
        "zwei" | "deux" | "dos" | "due" | "dois" | "twee" | "два" | "две" | "δύο" => 2,
        "drei" | "trois" | "tres" | "tre" | "três" | "drie" | "три" | "τρία" | "τρεις" => {
            3
        }
        "vier" | "quatre" | "cuatro" | "quattro" | "quatro" | "четыре" | "τέσσερα" => {
            4
        }
        "fünf" | "cinq" | "cinco" | "cinque" | "vijf" | "пять" | "πέντε" => 5,
        "sechs" | "seis" | "sei" | "zes" | "шесть" | "έξι" => 6,
        "sieben" | "sept" | "siete" | "sette" | "sete" | "zeven" | "семь" | "επτά" => 7,
        "acht" | "huit" | "ocho" | "otto" | "oito" | "восемь" | "οκτώ" => 8,
        "neun" | "neuf" | "nueve" | "nove" | "negen" | "девять" | "εννέα" => 9,
        "zehn" | "dix" | "diez" | "dieci" | "dez" | "tien" | "десять" | "δέκα" => 10,
        "elf" | "onze" | "once" | "undici" | "одиннадцать" => 11,
        "zwölf" | "douze" | "doce" | "dodici" | "twaalf" | "двенадцать" => 12,
        "dreizehn" | "treize" | "trece" | "tredici" => 13,
        "vierzehn" | "quatorze" | "catorce" | "quattordici" => 14,
        "fünfzehn" | "quinze" | "quince" | "quindici" => 15,
        "sechzehn" | "seize" | "dieciséis" | "sedici" => 16,
        "siebzehn" | "dix-sept" | "diecisiete" | "diciassette" => 17,
        "achtzehn" | "dix-huit" | "dieciocho" | "diciotto" => 18,
        "neunzehn" | "dix-neuf" | "diecinueve" | "diciannove" => 19,
        "zwanzig" | "vingt" | "veinte" | "venti" | "vinte" | "двадцать" => 20,
        "dreißig" | "trente" | "treinta" | "trenta" | "тридцать" => 30,
        "vierzig" | "quarante" | "cuarenta" | "quaranta" => 40,
        "fünfzig" | "cinquante" | "cincuenta" | "cinquanta" => 50,
        "hundert" | "cent" | "cien" | "cento" | "сто" => 100,
        "tausend" | "mille" | "тысяча" => 1000,
        _ => return None,
    })
}

/// The value of an upper-case Roman numeral of two letters or more up to 39 (`XII`,
/// `XIV`), as written in its one canonical form: centuries on pages.
pub(crate) fn roman(w: &str) -> Option<u64> {
    if w.len() < 2 || w.len() > 6 || !w.bytes().all(|b| matches!(b, b'I' | b'V' | b'X')) {
        return None;
    }
    const ONES: [&str; 10] = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"];
    let tens = w.bytes().take_while(|&b| b == b'X').count();
    let rest = &w[tens..];
    let ones = ONES.iter().position(|&o| o == rest)?;
    (tens <= 3).then_some((tens * 10 + ones) as u64)
}

/// Whether an ordinal suffix makes its number an ordinal for certain (`14th`, `19e`,
/// `1er`, `15ème`), not a letter that might be a unit (`15a`, `5o`).
pub(crate) fn ordinal_for_certain(w: &str) -> bool {
    matches!(
        w,
        "st" | "nd" | "rd" | "th" | "er" | "e" | "ème" | "eme" | "te"
    )
}

/// Whether a word names a century, after its number (`15th century`, `15.
/// Jahrhundert`, `XII secolo`, `XII века`).
pub(crate) fn century_word(w: &str) -> bool {
    let w = w.strip_suffix('.').unwrap_or(w);
    matches!(
        w,
        "century"
            | "centuries"
            | "jahrhundert"
            | "jahrhunderts"
            | "jh"
            | "siècle"
            | "siècles"
            | "siecle"
            | "secolo"
            | "secoli"
            | "siglo"
            | "siglos"
            | "século"
            | "séculos"
            | "eeuw"
            | "век"
            | "века"
            | "веке"
            | "веков"
            | "αιώνα"
            | "αιώνας"
            | "αι"
    )
}

/// An English ordinal word, read on pages (`fifteenth century`).
pub(crate) fn ordinal_word(w: &str) -> Option<u64> {
    Some(match w {
        "first" => 1,
        "second" => 2,
        "third" => 3,
        "fourth" => 4,
        "fifth" => 5,
        "sixth" => 6,
        "seventh" => 7,
        "eighth" => 8,
        "ninth" => 9,
        "tenth" => 10,
        "eleventh" => 11,
        "twelfth" => 12,
        "thirteenth" => 13,
        "fourteenth" => 14,
        "fifteenth" => 15,
        "sixteenth" => 16,
        "seventeenth" => 17,
        "eighteenth" => 18,
        "nineteenth" => 19,
        "twentieth" => 20,
        "thirtieth" => 30,
        "fortieth" => 40,
        "fiftieth" => 50,
        "hundredth" => 100,
        _ => return None,
    })
}

/// Ordinal suffixes glued to a number (`14th`, `1er`, `2nd`).
pub(crate) fn ordinal_suffix(w: &str) -> bool {
    matches!(
        w,
        "st" | "nd" | "rd" | "th" | "er" | "e" | "ème" | "eme" | "º" | "ª" | "o" | "a" | "te"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_in_several_languages() {
        for (w, m) in [
            ("march", 3),
            ("mar.", 3),
            ("märz", 3),
            ("марта", 3),
            ("апреля", 4),
            ("мая", 5),
            ("μαρτίου", 3),
            ("sept", 9),
            ("dezember", 12),
        ] {
            assert_eq!(month(w), Some(m), "{w}");
        }
        for w in ["mark", "machine", "маленький", "marsh"] {
            assert_eq!(month(w), None, "{w}");
        }
    }

    /// Every word the number, scale and ordinal tables match is let through by
    /// [`may_open`]: read from this file, so a word added to a table and not to
    /// [`OPENERS`] fails here.
    #[test]
    fn every_table_word_may_open_a_figure() {
        let source = include_str!("lexicon.rs");
        let mut seen = 0;
        for name in [
            "fn english_number",
            "fn foreign_number",
            "fn scale_plural",
            "fn ordinal_word",
            "fn month(",
        ] {
            let from = source.find(name).expect(name);
            let body = &source[from..];
            let body = &body[..body.find("\n}\n").expect("end of fn")];
            for (k, part) in body.split('"').enumerate() {
                // Months in other letters are not let through by the ASCII filter: they
                // never meet it.
                if k % 2 == 1 && (name != "fn month(" || part.is_ascii()) {
                    seen += 1;
                    assert!(may_open(part), "{part} ({name})");
                    assert!(OPENERS.contains(&part), "{part} ({name}) is not in OPENERS");
                }
            }
        }
        assert!(seen > 150, "{seen}");
        assert!(!may_open("leaders") && !may_open("wonderful") && !may_open(""));
    }

    #[test]
    fn roman_numerals_in_their_canonical_form() {
        for (w, n) in [
            ("XII", 12),
            ("XIV", 14),
            ("II", 2),
            ("XXXIX", 39),
            ("IX", 9),
        ] {
            assert_eq!(roman(w), Some(n), "{w}");
        }
        for w in ["I", "IIII", "VX", "XXXX", "IVI", "MIX", "XL"] {
            assert_eq!(roman(w), None, "{w}");
        }
    }
}
