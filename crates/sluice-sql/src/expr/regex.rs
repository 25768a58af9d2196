//! POSIX regular-expression matching: the `~`, `~*`, `!~` and `!~*`
//! operators (PostgreSQL's `regexp.c` over Henry Spencer's engine in
//! `src/backend/regex`).
//!
//! PostgreSQL's patterns are *advanced regular expressions* (AREs). This
//! file reads the ARE syntax people and clients write — psql turns `\d t*`
//! into `'^(t.*)$'` — and answers one question: does the pattern match
//! somewhere in the string? That question needs no captures and no
//! leftmost-longest bookkeeping, so the engine is the classic one from
//! Thompson: the pattern is compiled into a small non-deterministic
//! automaton and the string is read once, carrying the set of states alive
//! at each character. The cost is linear in the string for a given pattern,
//! whatever the pattern looks like — a crafted pattern cannot make a query
//! run for hours, as it can against backtracking engines.
//!
//! ```text
//!   '^(t|u)x*$'  ──parse──▶  Seq[Start, Alt[t, u], Repeat(x, 0..), End]
//!                ──compile─▶ 0: AssertStart  1: Split(2, 4)  2: Char t  3: Jmp 5
//!                            4: Char u  5: Split(6, 8)  6: Char x  7: Jmp 5
//!                            8: AssertEnd  9: Match
//! ```
//!
//! Supported: literals and escapes (`\.`, `\n`, `\t`, ...), `.`, bracket
//! expressions with ranges, negation and `[:class:]` names, the class
//! shorthands `\d \s \w` (and their negations, also inside brackets),
//! anchors `^ $ \A \Z`, word boundaries `\m \M \y \Y`, groups `( )` and
//! `(?: )`, alternation, and the quantifiers `* + ? {m} {m,} {m,n}` in their
//! greedy and non-greedy forms (the same for a yes/no answer). As in
//! PostgreSQL's default mode, `.` and negated brackets match newlines and
//! `^`/`$` match only at the ends of the string. Back references,
//! lookahead/lookbehind and embedded options are refused with 0A000 rather
//! than matched differently; malformed patterns fail with 2201B and
//! PostgreSQL's messages. Case-insensitive matching (`~*`) folds both sides
//! to lower case.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::{Result, SqlError};

/// The largest repetition count PostgreSQL accepts (`DUPMAX`).
const MAX_REPEAT: u32 = 255;

/// How many compiled patterns a session thread keeps.
const CACHE_SIZE: usize = 64;

/// regex_match -- whether `pattern` matches anywhere in `text`.
pub(super) fn regex_match(text: &str, pattern: &str, case_insensitive: bool) -> Result<bool> {
    let program = compiled(pattern, case_insensitive)?;
    let folded;
    let text = if case_insensitive {
        folded = text.to_lowercase();
        &folded
    } else {
        text
    };
    Ok(program.is_match(text))
}

thread_local! {
    /// Compiled programs by (pattern, case-insensitive): a WHERE clause
    /// applies the same constant pattern to every row.
    static CACHE: RefCell<HashMap<(String, bool), Rc<Program>>> = RefCell::new(HashMap::new());
}

/// The compiled program for a pattern, from the cache if possible.
fn compiled(pattern: &str, case_insensitive: bool) -> Result<Rc<Program>> {
    let key = (pattern.to_string(), case_insensitive);
    if let Some(p) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(p);
    }
    let ast =
        Parser { chars: pattern.chars().collect(), pos: 0, fold: case_insensitive }.parse()?;
    let program = Rc::new(Program::compile(&ast, case_insensitive));
    CACHE.with(|c| {
        let mut cache = c.borrow_mut();
        if cache.len() >= CACHE_SIZE {
            cache.clear();
        }
        cache.insert(key, program.clone());
    });
    Ok(program)
}

/// 2201B `invalid regular expression: ...`.
fn invalid(what: &str) -> SqlError {
    SqlError::new("2201B", format!("invalid regular expression: {what}"))
}

/// 0A000 for ARE features this engine does not have.
fn unsupported(what: &str) -> SqlError {
    SqlError::unsupported(format!("regular expression {what} are not supported"))
}

/// A parsed pattern.
#[derive(Clone, Debug)]
enum Node {
    /// Matches the empty string.
    Empty,
    /// One character.
    Char(char),
    /// Any character.
    Any,
    /// A bracket expression or class shorthand.
    Set(CharSet),
    /// A zero-width assertion.
    Assert(Assertion),
    /// Each in turn.
    Seq(Vec<Node>),
    /// Any one of them.
    Alt(Vec<Node>),
    /// `min` to `max` (unbounded: `None`) repetitions.
    Repeat(Box<Node>, u32, Option<u32>),
}

/// Zero-width tests of the position between two characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Assertion {
    /// `^`, `\A`: the start of the string.
    Start,
    /// `$`, `\Z`: the end of the string.
    End,
    /// `\m`: a word starts here.
    WordStart,
    /// `\M`: a word ends here.
    WordEnd,
    /// `\y`: a word starts or ends here.
    Boundary,
    /// `\Y`: no word starts or ends here.
    NotBoundary,
}

/// A set of characters: listed ranges and named classes, maybe negated.
#[derive(Clone, Debug, Default)]
struct CharSet {
    /// Inclusive ranges.
    ranges: Vec<(char, char)>,
    /// Named classes (`alpha`, `digit`, ...), each maybe negated (`\D`).
    classes: Vec<(Class, bool)>,
    /// `[^...]`.
    negated: bool,
}

/// The `[:name:]` classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Alpha,
    Digit,
    Alnum,
    Upper,
    Lower,
    Space,
    Blank,
    Punct,
    Xdigit,
    Cntrl,
    Graph,
    Print,
    Word,
}

impl Class {
    /// The class a `[:name:]` names.
    fn named(name: &str) -> Option<Class> {
        Some(match name {
            "alpha" => Class::Alpha,
            "digit" => Class::Digit,
            "alnum" => Class::Alnum,
            "upper" => Class::Upper,
            "lower" => Class::Lower,
            "space" => Class::Space,
            "blank" => Class::Blank,
            "punct" => Class::Punct,
            "xdigit" => Class::Xdigit,
            "cntrl" => Class::Cntrl,
            "graph" => Class::Graph,
            "print" => Class::Print,
            "word" => Class::Word,
            _ => return None,
        })
    }

    fn contains(self, c: char) -> bool {
        match self {
            Class::Alpha => c.is_alphabetic(),
            Class::Digit => c.is_ascii_digit(),
            Class::Alnum => c.is_alphanumeric(),
            Class::Upper => c.is_uppercase(),
            Class::Lower => c.is_lowercase(),
            Class::Space => c.is_whitespace(),
            Class::Blank => c == ' ' || c == '\t',
            Class::Punct => c.is_ascii_punctuation(),
            Class::Xdigit => c.is_ascii_hexdigit(),
            Class::Cntrl => c.is_control(),
            Class::Graph => !c.is_whitespace() && !c.is_control(),
            Class::Print => !c.is_control(),
            Class::Word => is_word(c),
        }
    }
}

/// Word characters for `\w`, `\m`, `\M`, `\y`.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl CharSet {
    fn class(class: Class, negated: bool) -> CharSet {
        CharSet { classes: vec![(class, negated)], ..CharSet::default() }
    }

    fn contains(&self, c: char) -> bool {
        let listed = self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
            || self.classes.iter().any(|&(class, neg)| class.contains(c) != neg);
        listed != self.negated
    }
}

/// A recursive-descent reader of the ARE grammar.
struct Parser {
    chars: Vec<char>,
    pos: usize,
    /// Case-insensitive: literal characters are read in lower case.
    fold: bool,
}

impl Parser {
    /// parse -- the whole pattern.
    fn parse(mut self) -> Result<Node> {
        if self.chars.starts_with(&['*', '*', '*']) {
            return Err(unsupported("directors (***)"));
        }
        let node = self.alternation()?;
        if self.pos < self.chars.len() {
            // Only an unmatched `)` stops the top-level alternation early.
            return Err(invalid("parentheses () not balanced"));
        }
        Ok(node)
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let found = self.peek() == Some(c);
        if found {
            self.pos += 1;
        }
        found
    }

    /// `branch | branch | ...`.
    fn alternation(&mut self) -> Result<Node> {
        let mut branches = vec![self.branch()?];
        while self.eat('|') {
            branches.push(self.branch()?);
        }
        Ok(if branches.len() == 1 {
            branches.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alt(branches)
        })
    }

    /// A sequence of quantified atoms, up to `|`, `)` or the end.
    fn branch(&mut self) -> Result<Node> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            items.push(self.quantified(atom)?);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Seq(items),
        })
    }

    /// One atom.
    fn atom(&mut self) -> Result<Node> {
        let c = self.peek().ok_or_else(|| invalid("quantifier operand invalid"))?;
        self.pos += 1;
        Ok(match c {
            '.' => Node::Any,
            '^' => Node::Assert(Assertion::Start),
            '$' => Node::Assert(Assertion::End),
            '[' => Node::Set(self.bracket()?),
            '(' => self.group()?,
            '\\' => self.escape()?,
            '*' | '+' | '?' | '{' => return Err(invalid("quantifier operand invalid")),
            c => self.literal(c),
        })
    }

    /// A literal character, folded for case-insensitive matching.
    fn literal(&self, c: char) -> Node {
        match self.fold {
            true => Node::Char(c.to_lowercase().next().unwrap_or(c)),
            false => Node::Char(c),
        }
    }

    /// After `(`: a group, capturing or not (captures are not reported).
    fn group(&mut self) -> Result<Node> {
        if self.eat('?') && !self.eat(':') {
            return Err(unsupported("lookaround constraints and embedded options"));
        }
        let inner = self.alternation()?;
        if !self.eat(')') {
            return Err(invalid("parentheses () not balanced"));
        }
        Ok(inner)
    }

    /// After `\` outside brackets.
    fn escape(&mut self) -> Result<Node> {
        let c = self.peek().ok_or_else(|| invalid("invalid escape \\ sequence"))?;
        self.pos += 1;
        if let Some(set) = class_escape(c) {
            return Ok(Node::Set(set));
        }
        Ok(match c {
            'A' => Node::Assert(Assertion::Start),
            'Z' => Node::Assert(Assertion::End),
            'm' => Node::Assert(Assertion::WordStart),
            'M' => Node::Assert(Assertion::WordEnd),
            'y' => Node::Assert(Assertion::Boundary),
            'Y' => Node::Assert(Assertion::NotBoundary),
            '1'..='9' => return Err(unsupported("back references")),
            c => self.literal(char_escape(c)?),
        })
    }

    /// After `[`: a bracket expression up to its `]`.
    fn bracket(&mut self) -> Result<CharSet> {
        let mut set = CharSet { negated: self.eat('^'), ..CharSet::default() };
        let mut first = true;
        loop {
            let c = self.peek().ok_or_else(|| invalid("brackets [] not balanced"))?;
            self.pos += 1;
            if c == ']' && !first {
                return Ok(set);
            }
            first = false;
            if c == '[' && self.eat(':') {
                let class = self.class_name()?;
                set.classes.push((class, false));
                continue;
            }
            if c == '[' && matches!(self.peek(), Some('.' | '=')) {
                return Err(unsupported("collating elements and equivalence classes"));
            }
            let lo = match c {
                '\\' => {
                    let e = self.peek().ok_or_else(|| invalid("brackets [] not balanced"))?;
                    self.pos += 1;
                    if let Some(mut shorthand) = class_escape(e) {
                        set.classes.append(&mut shorthand.classes);
                        continue;
                    }
                    char_escape(e)?
                }
                c => c,
            };
            set.ranges.push((lo, self.range_end(lo)?));
        }
    }

    /// The upper end of a range starting at `lo` (`lo` itself if none).
    fn range_end(&mut self, lo: char) -> Result<char> {
        if self.peek() != Some('-') || self.chars.get(self.pos + 1) == Some(&']') {
            return Ok(lo);
        }
        self.pos += 1;
        let hi = match self.peek() {
            Some('\\') => {
                self.pos += 1;
                let e = self.peek().ok_or_else(|| invalid("brackets [] not balanced"))?;
                self.pos += 1;
                char_escape(e)?
            }
            Some(c) => {
                self.pos += 1;
                c
            }
            None => return Err(invalid("brackets [] not balanced")),
        };
        if hi < lo {
            return Err(invalid("invalid character range"));
        }
        Ok(hi)
    }

    /// After `[:`: a class name and its `:]`.
    fn class_name(&mut self) -> Result<Class> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.pos += 1;
        }
        let name: String = self.chars[start..self.pos].iter().collect();
        if !(self.eat(':') && self.eat(']')) {
            return Err(invalid("brackets [] not balanced"));
        }
        Class::named(&name).ok_or_else(|| invalid("invalid character class"))
    }

    /// The quantifiers after an atom, if any.
    fn quantified(&mut self, atom: Node) -> Result<Node> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                self.pos += 1;
                self.bounds()?
            }
            _ => return Ok(atom),
        };
        self.pos += 1;
        // The non-greedy forms (`*?`, ...) match the same strings.
        self.eat('?');
        if matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
            return Err(invalid("quantifier operand invalid"));
        }
        if matches!(atom, Node::Assert(_)) {
            return Err(invalid("quantifier operand invalid"));
        }
        Ok(Node::Repeat(Box::new(atom), min, max))
    }

    /// After `{`: `m}`, `m,}` or `m,n}`; leaves the position on the `}`.
    fn bounds(&mut self) -> Result<(u32, Option<u32>)> {
        let min = self.number()?.ok_or_else(|| invalid("invalid repetition count(s)"))?;
        let max = if self.eat(',') { self.number()? } else { Some(min) };
        if self.peek() != Some('}') {
            return Err(invalid("braces {} not balanced"));
        }
        if min > MAX_REPEAT || max.is_some_and(|m| m > MAX_REPEAT || m < min) {
            return Err(invalid("invalid repetition count(s)"));
        }
        Ok((min, max))
    }

    fn number(&mut self) -> Result<Option<u32>> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if start == self.pos {
            return Ok(None);
        }
        let digits: String = self.chars[start..self.pos].iter().collect();
        digits.parse().map(Some).map_err(|_| invalid("invalid repetition count(s)"))
    }
}

/// `\d \D \s \S \w \W` as sets.
fn class_escape(c: char) -> Option<CharSet> {
    Some(match c {
        'd' => CharSet::class(Class::Digit, false),
        'D' => CharSet::class(Class::Digit, true),
        's' => CharSet::class(Class::Space, false),
        'S' => CharSet::class(Class::Space, true),
        'w' => CharSet::class(Class::Word, false),
        'W' => CharSet::class(Class::Word, true),
        _ => return None,
    })
}

/// The character an escape stands for: a control-character name, or the
/// character itself if it is not alphanumeric.
fn char_escape(c: char) -> Result<char> {
    Ok(match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'f' => '\x0c',
        'v' => '\x0b',
        'a' => '\x07',
        'e' => '\x1b',
        c if c.is_alphanumeric() => return Err(invalid("invalid escape \\ sequence")),
        c => c,
    })
}

/// One instruction of the automaton.
#[derive(Clone, Debug)]
enum Inst {
    /// Consume this character.
    Char(char),
    /// Consume any character.
    Any,
    /// Consume a character of set `n`.
    Set(usize),
    /// Continue only if the assertion holds here.
    Assert(Assertion),
    /// Continue at both targets.
    Split(usize, usize),
    /// Continue at the target.
    Jmp(usize),
    /// The pattern matched.
    Match,
}

/// A compiled pattern.
#[derive(Debug)]
struct Program {
    insts: Vec<Inst>,
    sets: Vec<CharSet>,
    /// Case-insensitive: the text arrives in lower case, so a set also
    /// matches a character whose upper case it contains (`[A-Z]`).
    fold: bool,
}

impl Program {
    /// compile -- the automaton for `node`, ending in `Match`.
    fn compile(node: &Node, fold: bool) -> Program {
        let mut p = Program { insts: Vec::new(), sets: Vec::new(), fold };
        p.emit(node);
        p.insts.push(Inst::Match);
        p
    }

    fn emit(&mut self, node: &Node) {
        match node {
            Node::Empty => {}
            Node::Char(c) => self.insts.push(Inst::Char(*c)),
            Node::Any => self.insts.push(Inst::Any),
            Node::Set(set) => {
                self.sets.push(set.clone());
                self.insts.push(Inst::Set(self.sets.len() - 1));
            }
            Node::Assert(a) => self.insts.push(Inst::Assert(*a)),
            Node::Seq(items) => items.iter().for_each(|n| self.emit(n)),
            Node::Alt(branches) => self.emit_alt(branches),
            Node::Repeat(inner, min, max) => self.emit_repeat(inner, *min, *max),
        }
    }

    /// `a|b|c`: a chain of splits, each branch jumping to the end.
    fn emit_alt(&mut self, branches: &[Node]) {
        let mut jumps = Vec::new();
        for (i, branch) in branches.iter().enumerate() {
            if i + 1 == branches.len() {
                self.emit(branch);
                break;
            }
            let split = self.placeholder();
            self.emit(branch);
            jumps.push(self.placeholder());
            self.insts[split] = Inst::Split(split + 1, self.insts.len());
        }
        let end = self.insts.len();
        for j in jumps {
            self.insts[j] = Inst::Jmp(end);
        }
    }

    /// `x{min,max}`: `min` copies, then optional ones (or a loop).
    fn emit_repeat(&mut self, inner: &Node, min: u32, max: Option<u32>) {
        for _ in 0..min {
            self.emit(inner);
        }
        match max {
            None => {
                let split = self.placeholder();
                self.emit(inner);
                self.insts.push(Inst::Jmp(split));
                self.insts[split] = Inst::Split(split + 1, self.insts.len());
            }
            Some(max) => {
                let mut splits = Vec::new();
                for _ in min..max {
                    splits.push(self.placeholder());
                    self.emit(inner);
                }
                let end = self.insts.len();
                for s in splits {
                    self.insts[s] = Inst::Split(s + 1, end);
                }
            }
        }
    }

    /// An instruction slot filled in once its targets are known.
    fn placeholder(&mut self) -> usize {
        self.insts.push(Inst::Match);
        self.insts.len() - 1
    }

    /// is_match -- runs the automaton over `text`, starting a thread at
    /// every position (the pattern is not anchored unless it says so).
    fn is_match(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        let mut current = Threads::new(self.insts.len());
        let mut next = Threads::new(self.insts.len());
        for at in 0..=chars.len() {
            if self.add(&mut current, 0, &chars, at) {
                return true;
            }
            let Some(&c) = chars.get(at) else { break };
            next.clear();
            for &pc in &current.list {
                let consumed = match &self.insts[pc] {
                    Inst::Char(want) => *want == c,
                    Inst::Any => true,
                    Inst::Set(n) => self.in_set(*n, c),
                    _ => false,
                };
                if consumed && self.add(&mut next, pc + 1, &chars, at + 1) {
                    return true;
                }
            }
            std::mem::swap(&mut current, &mut next);
        }
        false
    }

    /// Whether `c` is in set `n`, in either case when folding.
    fn in_set(&self, n: usize, c: char) -> bool {
        let set = &self.sets[n];
        set.contains(c) || (self.fold && c.to_uppercase().any(|u| set.contains(u)))
    }

    /// Adds `pc` and everything reachable from it without consuming a
    /// character at position `at`; true if that reaches `Match`.
    fn add(&self, threads: &mut Threads, pc: usize, chars: &[char], at: usize) -> bool {
        let mut stack = vec![pc];
        while let Some(pc) = stack.pop() {
            if !threads.insert(pc) {
                continue;
            }
            match &self.insts[pc] {
                Inst::Match => return true,
                Inst::Jmp(t) => stack.push(*t),
                Inst::Split(a, b) => {
                    stack.push(*b);
                    stack.push(*a);
                }
                Inst::Assert(a) => {
                    if holds(*a, chars, at) {
                        stack.push(pc + 1);
                    }
                }
                _ => threads.list.push(pc),
            }
        }
        false
    }
}

/// Whether assertion `a` holds between `chars[at - 1]` and `chars[at]`.
fn holds(a: Assertion, chars: &[char], at: usize) -> bool {
    let before = at.checked_sub(1).and_then(|i| chars.get(i)).is_some_and(|&c| is_word(c));
    let after = chars.get(at).is_some_and(|&c| is_word(c));
    match a {
        Assertion::Start => at == 0,
        Assertion::End => at == chars.len(),
        Assertion::WordStart => !before && after,
        Assertion::WordEnd => before && !after,
        Assertion::Boundary => before != after,
        Assertion::NotBoundary => before == after,
    }
}

/// The set of live states at one position: consuming instructions in
/// `list`, every visited instruction in `seen`.
struct Threads {
    list: Vec<usize>,
    seen: Vec<bool>,
}

impl Threads {
    fn new(n: usize) -> Threads {
        Threads { list: Vec::new(), seen: vec![false; n] }
    }

    /// Marks `pc` visited; false if it already was.
    fn insert(&mut self, pc: usize) -> bool {
        !std::mem::replace(&mut self.seen[pc], true)
    }

    fn clear(&mut self) {
        self.list.clear();
        self.seen.fill(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(text: &str, pattern: &str) -> bool {
        regex_match(text, pattern, false).unwrap()
    }

    #[test]
    fn psql_name_patterns() {
        assert!(m("t", "^(t)$"));
        assert!(!m("t_pkey", "^(t)$"));
        assert!(m("t_pkey", "^(t.*)$"));
        assert!(m("pg_toast_temp_1", "^pg_toast"));
        assert!(!m("public", "^pg_toast"));
        assert!(m("a.b", "^(a\\.b)$"));
        assert!(!m("axb", "^(a\\.b)$"));
    }

    #[test]
    fn classes_quantifiers_and_alternation() {
        assert!(m("abc123", "^[a-z]+[[:digit:]]{3}$"));
        assert!(!m("abc12", "^[a-z]+\\d{3}$"));
        assert!(m("xyz", "x(y|q)z"));
        assert!(m("", ""));
        assert!(m("foo bar", "\\mbar\\M"));
        assert!(!m("foobar", "\\mbar"));
        assert!(m("a]b", "[]]"));
        assert!(m("-", "[a-]"));
        assert!(m("Q", "[^a-z]"));
        assert!(m("aaa", "^a{2,3}?$"));
        assert!(!m("aaaa", "^a{2,3}$"));
        assert!(regex_match("HELLO", "^hel+o$", true).unwrap());
        assert!(regex_match("abc", "^[A-C]+\\W*$", true).unwrap());
    }

    #[test]
    fn malformed_patterns_are_refused() {
        let code = |p: &str| regex_match("x", p, false).unwrap_err().code;
        assert_eq!(code("(a"), "2201B");
        assert_eq!(code("a)"), "2201B");
        assert_eq!(code("[a"), "2201B");
        assert_eq!(code("*a"), "2201B");
        assert_eq!(code("a{3,2}"), "2201B");
        assert_eq!(code("\\q"), "2201B");
        assert_eq!(code("(a)\\1"), "0A000");
    }
}
