//! The closest passage: where on a page a refused quote's words gather most.
//!
//! Works on match keys alone (the caller maps the answer back to the page). A key is
//! read as a sequence of words — runs of letters and digits, and each CJK character on
//! its own, as unspaced CJK has no other word boundary; punctuation and spaces only
//! separate them. A window slides over the page's words, holding at most as many words
//! as the quote has and spanning at most about twice the quote's key, and is scored by
//! the words it shares with the quote (each counted as often as the quote has it), ties
//! going to more pairs of neighbouring words in the quote's order, then to the first
//! window. Every page word enters and leaves the window once, with a hash lookup each:
//! linear in the page, whatever the quote. An edit-distance search was rejected: it is
//! quadratic in the quote unless banded, and it scores a page's markup and spacing
//! differences that the writer need not copy.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::text::is_cjk;

/// Calls `each(start, end)` with the byte range of every word of `key`, in order.
fn for_each_word(key: &str, mut each: impl FnMut(usize, usize)) {
    let mut run: Option<usize> = None;
    for (i, c) in key.char_indices() {
        let cjk = is_cjk(c);
        if !cjk && c.is_alphanumeric() {
            run.get_or_insert(i);
            continue;
        }
        if let Some(start) = run.take() {
            each(start, i);
        }
        if cjk {
            each(i, i + c.len_utf8());
        }
    }
    if let Some(start) = run {
        each(start, key.len());
    }
}

/// A page word in the window: its key bytes, and which quote word it is, if any.
#[derive(Clone, Copy)]
struct Word {
    start: usize,
    end: usize,
    of_quote: Option<usize>,
}

/// The sliding window and its score.
struct Window<'q> {
    words: VecDeque<Word>,
    /// Per distinct quote word: how often the quote has it, how often the window does.
    wanted: Vec<usize>,
    held: Vec<usize>,
    /// Quote words in the window, each counted at most as often as the quote has it.
    shared: usize,
    /// Neighbouring window words that are neighbours in the quote, in that order.
    pairs: usize,
    quote_pairs: &'q HashSet<(usize, usize)>,
}

impl Window<'_> {
    fn is_pair(&self, a: Word, b: Word) -> bool {
        matches!((a.of_quote, b.of_quote), (Some(x), Some(y)) if self.quote_pairs.contains(&(x, y)))
    }

    fn push(&mut self, w: Word) {
        if let Some(&last) = self.words.back()
            && self.is_pair(last, w)
        {
            self.pairs += 1;
        }
        if let Some(q) = w.of_quote {
            self.held[q] += 1;
            if self.held[q] <= self.wanted[q] {
                self.shared += 1;
            }
        }
        self.words.push_back(w);
    }

    fn pop(&mut self) {
        let Some(w) = self.words.pop_front() else {
            return;
        };
        if let Some(&next) = self.words.front()
            && self.is_pair(w, next)
        {
            self.pairs -= 1;
        }
        if let Some(q) = w.of_quote {
            if self.held[q] <= self.wanted[q] {
                self.shared -= 1;
            }
            self.held[q] -= 1;
        }
    }

    /// Key bytes from the first word's start to the last word's end.
    fn span(&self) -> Option<(usize, usize)> {
        Some((self.words.front()?.start, self.words.back()?.end))
    }
}

/// The key byte range (`start..end`) of `hay` closest to `needle`, trimmed to start and
/// end on words the quote has; `None` when the best window shares fewer than two words,
/// or fewer than half of the quote's.
pub(super) fn closest(needle: &str, hay: &str) -> Option<(usize, usize)> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut wanted: Vec<usize> = Vec::new();
    let mut order: Vec<usize> = Vec::new();
    for_each_word(needle, |start, end| {
        let next = index.len();
        let q = *index.entry(&needle[start..end]).or_insert(next);
        if q == wanted.len() {
            wanted.push(0);
        }
        wanted[q] += 1;
        order.push(q);
    });
    let n = order.len();
    let quote_pairs: HashSet<(usize, usize)> = order.windows(2).map(|p| (p[0], p[1])).collect();
    let longest = index.keys().map(|w| w.len()).max()?;
    let reach = 2 * needle.len() + 64;
    let mut window = Window {
        words: VecDeque::with_capacity(n + 1),
        held: vec![0; wanted.len()],
        wanted,
        shared: 0,
        pairs: 0,
        quote_pairs: &quote_pairs,
    };
    // (shared, pairs, start, end) of the best window so far.
    let mut best: Option<(usize, usize, usize, usize)> = None;
    for_each_word(hay, |start, end| {
        let word = &hay[start..end];
        // A word longer than every quote word is none of them: no need to hash it.
        let of_quote = if word.len() <= longest {
            index.get(word).copied()
        } else {
            None
        };
        window.push(Word {
            start,
            end,
            of_quote,
        });
        while window.words.len() > n || window.span().is_some_and(|(from, to)| to - from > reach) {
            window.pop();
        }
        let better =
            best.is_none_or(|(shared, pairs, ..)| (window.shared, window.pairs) > (shared, pairs));
        if better && let Some((from, to)) = window.span() {
            best = Some((window.shared, window.pairs, from, to));
        }
    });
    let (shared, _, from, to) = best?;
    if shared < 2 || 2 * shared < n {
        return None;
    }
    // Trim the window to the quote's words at its ends.
    let mut trimmed: Option<(usize, usize)> = None;
    for_each_word(&hay[from..to], |start, end| {
        if index.contains_key(&hay[from + start..from + end]) {
            let first = trimmed.map_or(from + start, |(first, _)| first);
            trimmed = Some((first, from + end));
        }
    });
    trimmed
}
