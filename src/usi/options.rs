//! The USI options: what `usi` advertises, what `setoption` may change, and
//! the typed settings the rest of the engine reads from them.
//!
//! Options are a table (name, kind, current value) so that advertising,
//! validation and lookup cannot disagree. Names are matched without regard
//! to case, as the USI spec asks.

use super::go::SearchCaps;
use super::output::{shorten, ReportSettings, DEFAULT_PV_INTERVAL_MS};
use crate::book::BookSettings;
use crate::position::EnteringKingRule;
use crate::search::params::{SearchParams, TUNABLES};
use crate::search::{Features, SearchOptions};
use crate::time::TimeSettings;
use crate::types::Value;
use std::time::Duration;

/// `EvalFile` value that names the network built into the binary.
pub const EMBEDDED_NETWORK: &str = "<internal>";

/// The evaluation file's name inside an `EvalDir` folder (YaneuraOu's).
pub const STANDARD_FILE_NAME: &str = "nn.bin";

/// Hash table size when none is set (MiB).
pub const DEFAULT_HASH_MIB: i64 = 256;

/// The type of an option, with its default and limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `true`/`false`.
    Check {
        /// Value before any `setoption`.
        default: bool,
    },
    /// An integer within `min..=max`.
    Spin {
        /// Value before any `setoption`.
        default: i64,
        /// Smallest accepted value.
        min: i64,
        /// Largest accepted value.
        max: i64,
    },
    /// One of a fixed list of words.
    Combo {
        /// Value before any `setoption`.
        default: &'static str,
        /// The accepted words.
        vars: &'static [&'static str],
    },
    /// An action without a value.
    Button,
    /// Free text (a file name); USI type `string`.
    Text {
        /// Value before any `setoption`.
        default: &'static str,
    },
}

/// The value an option holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// Of a check option.
    Check(bool),
    /// Of a spin option.
    Spin(i64),
    /// Of a combo option (one of its vars).
    Combo(&'static str),
    /// Of a text option.
    Text(String),
    /// Buttons hold nothing.
    None,
}

/// What a successful `setoption` asks the engine to do besides storing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetEffect {
    /// Nothing more: the value is read when needed.
    Stored,
    /// The `ClearHash` button: empty the hash table.
    ClearHash,
}

struct Entry {
    name: &'static str,
    kind: OptionKind,
    value: OptionValue,
}

/// Names of the search switches that are spins rather than checks: the
/// `Features::ABLATIONS` entries `Name=value` set them.
const SPIN_SWITCHES: [&str; 1] = ["Killers"];

/// Entering-king rule names as the `EnteringKingRule` combo shows them.
const ENTERING_KING_RULES: [(&str, EnteringKingRule); 6] = [
    ("NoEnteringKing", EnteringKingRule::None),
    ("CSARule24", EnteringKingRule::Csa24),
    ("CSARule24H", EnteringKingRule::Csa24Handicap),
    ("CSARule27", EnteringKingRule::Csa27),
    ("CSARule27H", EnteringKingRule::Csa27Handicap),
    ("TryRule", EnteringKingRule::Try),
];

/// The `EnteringKingRule` combo's words, in YaneuraOu's order.
const ENTERING_KING_RULE_NAMES: [&str; 6] = [
    "NoEnteringKing",
    "CSARule24",
    "CSARule24H",
    "CSARule27",
    "CSARule27H",
    "TryRule",
];

/// The `EvalType` combo's words: the network (`EvalFile`/`EvalDir`, or the
/// embedded one), the hand-crafted evaluation, material only.
const EVAL_TYPES: [&str; 3] = ["Network", "Classic", "Material"];

/// Which evaluation `EvalType` and `ClassicEval` ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalKind {
    Network,
    Classic,
    Material,
}

/// Every USI option with its current value.
pub struct Options {
    entries: Vec<Entry>,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

fn spin(name: &'static str, default: i64, min: i64, max: i64) -> Entry {
    Entry {
        name,
        kind: OptionKind::Spin { default, min, max },
        value: OptionValue::Spin(default),
    }
}

fn text(name: &'static str, default: &'static str) -> Entry {
    Entry {
        name,
        kind: OptionKind::Text { default },
        value: OptionValue::Text(default.to_string()),
    }
}

fn check(name: &'static str, default: bool) -> Entry {
    Entry {
        name,
        kind: OptionKind::Check { default },
        value: OptionValue::Check(default),
    }
}

impl Options {
    /// Every option at its default.
    pub fn new() -> Options {
        let mut entries = vec![
            spin("USI_Hash", DEFAULT_HASH_MIB, 1, 65_536),
            check("USI_Ponder", false),
            // One until the search is parallel; the value is kept meanwhile.
            spin("Threads", 1, 1, 256),
            spin("MultiPV", 1, 1, 600),
            spin("NetworkDelay", 50, 0, 10_000),
            spin("MinimumThinkingTime", 0, 0, 600_000),
            Entry {
                name: "EnteringKingRule",
                kind: OptionKind::Combo {
                    default: "CSARule27",
                    vars: &ENTERING_KING_RULE_NAMES,
                },
                value: OptionValue::Combo("CSARule27"),
            },
            spin("DrawValue", 0, -3_000, 3_000),
            spin("ResignValue", 0, 0, 32_000),
            spin("MateHash", 64, 1, 65_536),
            Entry {
                name: "ClearHash",
                kind: OptionKind::Button,
                value: OptionValue::None,
            },
            text("EvalFile", EMBEDDED_NETWORK),
            text("EvalDir", EMBEDDED_NETWORK),
            spin(
                "FV_SCALE",
                crate::nnue::standard::DEFAULT_FV_SCALE as i64,
                1,
                128,
            ),
            check("ClassicEval", false),
            Entry {
                name: "EvalType",
                kind: OptionKind::Combo {
                    default: "Network",
                    vars: &EVAL_TYPES,
                },
                value: OptionValue::Combo("Network"),
            },
        ];
        for (name, _) in Features::ABLATIONS {
            if !name.contains('=') {
                entries.push(check(name, true));
            }
        }
        // Off by default (see `Features::OPT_IN`), so not ablation
        // switches: `true` turns one on.
        for (name, _) in Features::OPT_IN {
            entries.push(check(name, false));
        }
        entries.push(spin(
            "RootMatePercent",
            SearchOptions::default().root_mate_percent.into(),
            0,
            100,
        ));
        let killers = Features::default().killers as i64;
        entries.push(spin("Killers", killers, 0, killers));
        entries.extend(book_options());
        entries.push(check("ConsiderationMode", false));
        entries.push(check("OutputFailLHPV", true));
        entries.push(spin(
            "PvInterval",
            DEFAULT_PV_INTERVAL_MS as i64,
            0,
            100_000,
        ));
        entries.extend(match_options());
        entries.extend(tuning_options());
        Options { entries }
    }

    /// The `option name … type …` lines for the `usi` answer.
    pub fn usi_lines(&self) -> Vec<String> {
        self.entries.iter().map(advertise).collect()
    }

    fn find(&self, name: &str) -> Option<usize> {
        let name = if name.eq_ignore_ascii_case("USI_MultiPV") {
            "MultiPV"
        } else {
            name
        };
        self.entries
            .iter()
            .position(|e| e.name.eq_ignore_ascii_case(name))
    }

    /// Applies `setoption name <name> [value <value>]`; on any error nothing
    /// changes and the message says why.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<SetEffect, String> {
        let shown = shorten(name, 40);
        let i = self
            .find(name)
            .ok_or_else(|| format!("unknown option '{shown}'"))?;
        let entry = &mut self.entries[i];
        let parsed = parse_value(entry.kind, value)
            .map_err(|why| format!("option {}: {why}", entry.name))?;
        if entry.kind == OptionKind::Button {
            return Ok(match entry.name {
                "ClearHash" => SetEffect::ClearHash,
                _ => SetEffect::Stored,
            });
        }
        entry.value = parsed;
        Ok(SetEffect::Stored)
    }

    fn value(&self, name: &str) -> &OptionValue {
        self.find(name)
            .map_or(&OptionValue::None, |i| &self.entries[i].value)
    }

    /// The value of a spin option (0 for a name that is not a spin).
    pub fn spin(&self, name: &str) -> i64 {
        match self.value(name) {
            OptionValue::Spin(v) => *v,
            _ => 0,
        }
    }

    /// The value of a text option ("" for a name that is not text).
    pub fn text(&self, name: &str) -> &str {
        match self.value(name) {
            OptionValue::Text(v) => v,
            _ => "",
        }
    }

    /// The network file asked for; `None` for the embedded network.
    /// `EvalFile` (a file) wins over `EvalDir` (a folder holding `nn.bin`,
    /// as YaneuraOu users know it): the more specific setting. A relative
    /// `EvalDir` that does not exist from the working folder is looked
    /// for beside the engine binary, where YaneuraOu looks.
    pub fn eval_file(&self) -> Option<String> {
        let given = |name: &str| {
            let name = name.trim();
            let embedded = name.is_empty()
                || name.eq_ignore_ascii_case(EMBEDDED_NETWORK)
                || name.eq_ignore_ascii_case("<empty>");
            (!embedded).then(|| name.to_string())
        };
        if let Some(file) = given(self.text("EvalFile")) {
            return Some(file);
        }
        let dir = std::path::PathBuf::from(given(self.text("EvalDir"))?);
        let beside_binary = || {
            let exe = std::env::current_exe().ok()?;
            Some(exe.parent()?.join(&dir))
        };
        let dir = if dir.is_relative() && !dir.exists() {
            beside_binary().unwrap_or(dir)
        } else {
            dir
        };
        Some(dir.join(STANDARD_FILE_NAME).to_string_lossy().into_owned())
    }

    /// The divisor of a YaneuraOu-format network's output.
    pub fn fv_scale(&self) -> i32 {
        self.spin("FV_SCALE") as i32
    }

    /// The value of a check option (false for a name that is not a check).
    pub fn check(&self, name: &str) -> bool {
        matches!(self.value(name), OptionValue::Check(true))
    }

    /// Hash table size in MiB.
    pub fn hash_mib(&self) -> usize {
        self.spin("USI_Hash") as usize
    }

    /// Search threads asked for.
    pub fn threads(&self) -> usize {
        self.spin("Threads") as usize
    }

    /// Hash size for the mate solver, MiB.
    pub fn mate_hash_mib(&self) -> usize {
        self.spin("MateHash") as usize
    }

    /// Resign when the score is at or below minus this (0: never).
    pub fn resign_value(&self) -> Value {
        self.spin("ResignValue") as Value
    }

    /// What the analysis options ask of the `info` lines.
    pub fn report_settings(&self) -> ReportSettings {
        ReportSettings {
            interval: Duration::from_millis(self.spin("PvInterval") as u64),
            fail_high_low: self.check("OutputFailLHPV"),
            consideration: self.check("ConsiderationMode"),
        }
    }

    /// Time settings for the time manager.
    pub fn time_settings(&self) -> TimeSettings {
        TimeSettings {
            network_delay: Duration::from_millis(self.spin("NetworkDelay") as u64),
            minimum_thinking: Duration::from_millis(self.spin("MinimumThinkingTime") as u64),
        }
    }

    /// Options for the searcher.
    pub fn search_options(&self) -> SearchOptions {
        SearchOptions {
            multipv: self.spin("MultiPV") as usize,
            draw_value: self.spin("DrawValue") as Value,
            entering_king_rule: self.entering_king_rule(),
            features: self.features(),
            params: self.search_params(),
            root_mate_percent: self.spin("RootMatePercent") as u32,
            max_moves_to_draw: match self.spin("MaxMovesToDraw") {
                0 => u32::MAX,
                n => n as u32,
            },
            ..SearchOptions::default()
        }
    }

    /// The search constants: the defaults, or in a `tune` build the
    /// values of the tuning options.
    fn search_params(&self) -> SearchParams {
        let mut params = SearchParams::DEFAULT;
        if cfg!(feature = "tune") {
            for t in TUNABLES {
                (t.set)(&mut params, self.spin(t.name) as i32);
            }
        }
        params
    }

    /// The evaluation asked for: `EvalType`, where `ClassicEval` (the
    /// older switch) still turns the network into the hand-crafted
    /// evaluation.
    pub fn eval_kind(&self) -> EvalKind {
        match self.value("EvalType") {
            OptionValue::Combo("Material") => EvalKind::Material,
            OptionValue::Combo("Classic") => EvalKind::Classic,
            _ if self.check("ClassicEval") => EvalKind::Classic,
            _ => EvalKind::Network,
        }
    }

    fn entering_king_rule(&self) -> EnteringKingRule {
        let &OptionValue::Combo(name) = self.value("EnteringKingRule") else {
            return EnteringKingRule::default();
        };
        ENTERING_KING_RULES
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(EnteringKingRule::default(), |&(_, rule)| rule)
    }

    /// The search switches: every check option that is off, and the spins
    /// at the values an ablation entry names.
    fn features(&self) -> Features {
        let mut features = Features::default();
        for (name, switch_off) in Features::ABLATIONS {
            let off = match name.split_once('=') {
                None => !self.check(name),
                Some((base, value)) => value.parse() == Ok(self.spin(base)),
            };
            if off {
                switch_off(&mut features);
            }
        }
        for (name, switch) in Features::OPT_IN {
            switch(&mut features, self.check(name));
        }
        features
    }
}

/// One spin option per search constant in a `tune` build (for SPSA, which
/// sets them per game through `setoption`); none otherwise, so that users
/// see only options meant for them.
fn tuning_options() -> Vec<Entry> {
    if !cfg!(feature = "tune") {
        return Vec::new();
    }
    TUNABLES
        .iter()
        .map(|t| {
            let value = (t.get)(&SearchParams::DEFAULT);
            spin(t.name, value.into(), t.min.into(), t.max.into())
        })
        .collect()
}

/// The opening book options (YaneuraOu's names; see `crate::book`).
fn book_options() -> Vec<Entry> {
    let d = BookSettings::default();
    vec![
        check("USI_OwnBook", true),
        text("BookFile", NO_BOOK),
        spin("BookMoves", 16, 0, 10_000),
        spin("BookEvalDiff", d.eval_diff as i64, 0, 99_999),
        spin("BookEvalBlackLimit", d.black_limit as i64, -99_999, 99_999),
        spin("BookEvalWhiteLimit", d.white_limit as i64, -99_999, 99_999),
        spin("BookDepthLimit", d.depth_limit as i64, 0, u16::MAX as i64),
        check("ConsiderBookMoveCount", d.consider_count),
        // Book positions always match whatever the ply (see `crate::book`):
        // the option is accepted for GUIs that set it, and changes nothing.
        check("IgnoreBookPly", true),
        check("FlippedBook", d.flipped),
        spin("BookPvMoves", d.pv_moves as i64, 1, 246),
    ]
}

/// Options for matches under special rules (YaneuraOu's names).
fn match_options() -> Vec<Entry> {
    vec![
        // Fixed-node and fixed-depth tournaments: every `go` is capped.
        spin("NodesLimit", 0, 0, i64::MAX),
        spin("DepthLimit", 0, 0, MAX_DEPTH_LIMIT),
        // The game is a draw after this move (0: no limit).
        spin("MaxMovesToDraw", 0, 0, 100_000),
        // `go ponder` thinks on the position before the predicted move.
        check("Stochastic_Ponder", false),
    ]
}

/// Largest `DepthLimit` (the search never goes deeper anyway).
const MAX_DEPTH_LIMIT: i64 = 10_000;

impl Options {
    /// The caps `NodesLimit` and `DepthLimit` put on every `go`.
    pub fn search_caps(&self) -> SearchCaps {
        let nodes = self.spin("NodesLimit");
        let depth = self.spin("DepthLimit");
        SearchCaps {
            nodes: (nodes > 0).then_some(nodes as u64),
            depth: (depth > 0).then_some(depth as i32),
        }
    }
}

/// The `BookFile` value meaning "no book" (as does the empty string).
pub const NO_BOOK: &str = "no_book";

impl Options {
    /// The book file to use, `None` when the book is off or none is set.
    pub fn book_file(&self) -> Option<String> {
        let name = self.text("BookFile").trim();
        let none = name.is_empty() || name == NO_BOOK || name.eq_ignore_ascii_case("<empty>");
        (self.check("USI_OwnBook") && !none).then(|| name.to_string())
    }

    /// The last game ply (1 = the first move) at which the book is used.
    pub fn book_moves(&self) -> u32 {
        self.spin("BookMoves") as u32
    }

    /// The options that filter and choose book moves.
    pub fn book_settings(&self) -> BookSettings {
        BookSettings {
            eval_diff: self.spin("BookEvalDiff") as Value,
            black_limit: self.spin("BookEvalBlackLimit") as Value,
            white_limit: self.spin("BookEvalWhiteLimit") as Value,
            depth_limit: self.spin("BookDepthLimit") as u16,
            consider_count: self.check("ConsiderBookMoveCount"),
            flipped: self.check("FlippedBook"),
            pv_moves: self.spin("BookPvMoves") as usize,
        }
    }
}

/// The `option …` line advertising one entry.
fn advertise(e: &Entry) -> String {
    match e.kind {
        OptionKind::Check { default } => {
            format!("option name {} type check default {default}", e.name)
        }
        OptionKind::Spin { default, min, max } => format!(
            "option name {} type spin default {default} min {min} max {max}",
            e.name
        ),
        OptionKind::Combo { default, vars } => {
            let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
            format!("option name {} type combo default {default}{vars}", e.name)
        }
        OptionKind::Button => format!("option name {} type button", e.name),
        OptionKind::Text { default } => {
            format!("option name {} type string default {default}", e.name)
        }
    }
}

/// Reads `value` for an option of `kind`.
fn parse_value(kind: OptionKind, value: Option<&str>) -> Result<OptionValue, String> {
    if kind == OptionKind::Button {
        return Ok(OptionValue::None);
    }
    if let OptionKind::Text { .. } = kind {
        // A file name may contain spaces; it may not be longer than a path.
        let text = value.unwrap_or("");
        if text.len() > 4096 {
            return Err("text longer than 4096 bytes".to_string());
        }
        return Ok(OptionValue::Text(text.to_string()));
    }
    let text = value
        .filter(|v| !v.is_empty())
        .ok_or("a value is required")?;
    let shown = shorten(text, 40);
    match kind {
        OptionKind::Check { .. } => match text.to_ascii_lowercase().as_str() {
            "true" => Ok(OptionValue::Check(true)),
            "false" => Ok(OptionValue::Check(false)),
            _ => Err(format!("'{shown}' is not true or false")),
        },
        OptionKind::Spin { min, max, .. } => match text.parse::<i64>() {
            Ok(v) if (min..=max).contains(&v) => Ok(OptionValue::Spin(v)),
            _ => Err(format!("'{shown}' is not an integer in {min}..{max}")),
        },
        OptionKind::Combo { vars, .. } => vars
            .iter()
            .find(|v| v.eq_ignore_ascii_case(text))
            .map(|v| OptionValue::Combo(v))
            .ok_or_else(|| format!("'{shown}' is not one of {}", vars.join(", "))),
        OptionKind::Button | OptionKind::Text { .. } => Ok(OptionValue::None),
    }
}

/// Names of the `Features::ABLATIONS` entries whose `Name=value` form has
/// no spin option to set it (kept empty by a test).
pub fn unhandled_spin_switches() -> Vec<&'static str> {
    Features::ABLATIONS
        .iter()
        .filter_map(|(name, _)| name.split_once('=').map(|(base, _)| base))
        .filter(|base| !SPIN_SWITCHES.contains(base))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_line_is_well_formed() {
        let lines = Options::new().usi_lines();
        for l in &lines {
            assert!(l.starts_with("option name "), "{l}");
            assert!(l.contains(" type "), "{l}");
        }
        for name in [
            "USI_Hash",
            "USI_Ponder",
            "Threads",
            "MultiPV",
            "ClearHash",
            "NullMove",
        ] {
            assert!(
                lines.iter().any(|l| l.contains(&format!("name {name} "))),
                "{name}"
            );
        }
        assert!(lines
            .iter()
            .any(|l| l.contains("name Killers type spin default 2 min 0 max 2")));
    }

    #[test]
    fn every_entering_king_rule_name_has_its_rule() {
        let mut o = Options::new();
        for (i, name) in ENTERING_KING_RULE_NAMES.iter().enumerate() {
            o.set("EnteringKingRule", Some(name)).unwrap();
            assert_eq!(o.entering_king_rule(), ENTERING_KING_RULES[i].1, "{name}");
        }
    }

    #[test]
    fn every_spin_switch_has_an_option() {
        assert!(unhandled_spin_switches().is_empty());
    }

    #[test]
    fn bad_values_change_nothing() {
        let mut o = Options::new();
        for (name, value) in [
            ("USI_Hash", Some("abc")),
            ("USI_Hash", Some("0")),
            ("USI_Hash", Some("99999999999999999999999")),
            ("USI_Hash", None),
            ("USI_Ponder", Some("maybe")),
            ("EnteringKingRule", Some("__no_such_var__")),
            ("NoSuchOption", Some("1")),
        ] {
            assert!(o.set(name, value).is_err(), "{name} {value:?}");
        }
        assert_eq!(o.hash_mib(), DEFAULT_HASH_MIB as usize);
        assert!(!o.check("USI_Ponder"));
    }

    #[test]
    fn values_are_stored_and_aliases_accepted() {
        let mut o = Options::new();
        o.set("usi_hash", Some("16")).unwrap();
        o.set("USI_MultiPV", Some("3")).unwrap();
        o.set("EnteringKingRule", Some("csarule24")).unwrap();
        o.set("Threads", Some("4")).unwrap();
        assert_eq!(o.hash_mib(), 16);
        assert_eq!(o.search_options().multipv, 3);
        assert_eq!(o.threads(), 4);
        assert_eq!(
            o.search_options().entering_king_rule,
            EnteringKingRule::Csa24
        );
        assert_eq!(o.set("ClearHash", None), Ok(SetEffect::ClearHash));
    }

    #[test]
    fn switches_reach_the_search_features() {
        let mut o = Options::new();
        assert_eq!(o.search_options().features, Features::default());
        o.set("NullMove", Some("false")).unwrap();
        o.set("Killers", Some("1")).unwrap();
        o.set("MateOnePly", Some("false")).unwrap();
        let f = o.search_options().features;
        assert!(!f.mate_one_ply && Features::default().mate_one_ply);
        assert!(!f.null_move);
        assert_eq!(f.killers, 1);
        assert!(f.late_move_reductions);
    }

    /// The search constants are options only in a `tune` build, and there
    /// they reach the search.
    #[test]
    fn tuning_options_reach_the_search_params() {
        let mut o = Options::new();
        assert_eq!(o.search_options().params, SearchParams::DEFAULT);
        let advertised = o.usi_lines().iter().any(|l| l.contains("name LmrBasePct "));
        assert_eq!(advertised, cfg!(feature = "tune"));
        if cfg!(feature = "tune") {
            o.set("LmrBasePct", Some("120")).unwrap();
            o.set("FutilityBase", Some("90")).unwrap();
            let p = o.search_options().params;
            assert_eq!((p.lmr_base_pct, p.futility_base), (120, 90));
            assert_eq!(p.rfp_margin, SearchParams::DEFAULT.rfp_margin);
        }
    }

    #[test]
    fn book_options_read_back() {
        let mut o = Options::new();
        let lines = o.usi_lines();
        assert!(lines.contains(&"option name BookFile type string default no_book".to_string()));
        assert_eq!(o.book_file(), None);
        o.set("BookFile", Some("book/standard book.db")).unwrap();
        assert_eq!(o.book_file().as_deref(), Some("book/standard book.db"));
        o.set("USI_OwnBook", Some("false")).unwrap();
        assert_eq!(o.book_file(), None);
        o.set("USI_OwnBook", Some("true")).unwrap();
        o.set("BookFile", Some("<empty>")).unwrap();
        assert_eq!(o.book_file(), None);
        o.set("BookEvalWhiteLimit", Some("-50")).unwrap();
        o.set("BookDepthLimit", Some("16")).unwrap();
        let s = o.book_settings();
        assert_eq!((s.white_limit, s.depth_limit), (-50, 16));
        assert_eq!(s.eval_diff, BookSettings::default().eval_diff);
    }

    #[test]
    fn untrusted_text_is_shortened_and_escaped() {
        assert_eq!(shorten("abc", 40), "abc");
        assert_eq!(shorten("a\u{0}b", 40), "a\\u{0}b");
        assert_eq!(shorten(&"x".repeat(100), 3), "xxx...");
    }
}
