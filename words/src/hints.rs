//! Hints for what users of other languages reach for (`; hint: …` after an error's
//! fixed message, and in `word_contract` for the name): Forth's stack shufflers, an
//! `IF`, a print Word, a power operator, a length or an average under another name,
//! `==`, a reduce, a loop, an append, a split, a first or last, a variable or function
//! definition, a null, a double-quoted string, `^` written as a power. Each names the Ajisai Word or idiom and
//! shows it at work; `tests/hints.rs` runs every example and keeps every name unknown.

use ajisai_core::outcome::Trap;
use ajisai_core::word::{Hint, HintFor, HintRegistration};

/// Every hint, in the order `word_contract` and errors consult them.
pub const HINTS: &[Hint] = &[
    Hint {
        answers: HintFor::DeepRecursion,
        text: "a recursive Word needs a base case that returns without calling it again: test for it with COND, and make the self-call the last token of a clause body, where it is a tail call and runs in constant memory (`{ { 0 > | 1 - R } { IDLE | 'done' } COND } 'R' DEF 1000 R` → 'done')",
    },
    Hint {
        answers: HintFor::Names(&["DUP"]),
        text: "Ajisai has no DUP: name the value with BIND and use the name twice (`5 'X' BIND X X *` → 25/1), or let the next Word keep its operand with KEEP (`5 KEEP NEG` → 5/1 -5/1)",
    },
    Hint {
        answers: HintFor::Names(&["SWAP"]),
        text: "Ajisai has no SWAP: name the values with BIND and push them in the order you need (`1 2 'B' BIND 'A' BIND B A` → 2/1 1/1)",
    },
    Hint {
        answers: HintFor::Names(&["DROP"]),
        text: "Ajisai has no DROP: bind the top value to no name at all (`1 2 [ ] BIND` → 1/1)",
    },
    Hint {
        answers: HintFor::Names(&["OVER"]),
        text: "Ajisai has no OVER: name the values with BIND and push them again (`1 2 'B' BIND 'A' BIND A B A` → 1/1 2/1 1/1)",
    },
    Hint {
        answers: HintFor::Names(&["ROT"]),
        text: "Ajisai has no ROT: name the values with BIND and push them in the new order (`1 2 3 'C' BIND 'B' BIND 'A' BIND B C A` → 2/1 3/1 1/1)",
    },
    Hint {
        answers: HintFor::Names(&["IF", "ELSE", "THEN", "ENDIF", "WHEN", "UNLESS"]),
        text: "Ajisai branches with COND: clause blocks `{ guard | body }` tried in order on the value below them, IDLE being the guard that always holds (`5 { 0 > | 'positive' } { IDLE | 'not positive' } COND` → 'positive')",
    },
    Hint {
        answers: HintFor::Names(&[".", "EMIT", "ECHO", "PUTS", "PRINTLN", "DISPLAY"]),
        text: "Ajisai prints with PRINT, one line per call (`42 PRINT` prints 42/1)",
    },
    Hint {
        answers: HintFor::Names(&["**", "POWER", "PWR", "EXPT"]),
        text: "powers are POW (`2 10 POW` → 1024/1)",
    },
    Hint {
        answers: HintFor::Names(&["SQUARE", "SQR"]),
        text: "a square is a power: POW with 2 (`7 2 POW` → 49/1); SQRT is the square root",
    },
    Hint {
        answers: HintFor::Names(&["LEN", "SIZE", "COUNT"]),
        text: "a Vector's length is LENGTH (`[ 1 2 3 ] LENGTH` → 3/1)",
    },
    Hint {
        answers: HintFor::Names(&["AVG", "AVERAGE"]),
        text: "the mean is the phrasebook Word MEAN, or SUM divided by LENGTH (`[ 1 2 3 ] SUM [ 1 2 3 ] LENGTH /` → 2/1)",
    },
    Hint {
        answers: HintFor::Names(&["==", "==="]),
        text: "equality is EQ, also written `=` (`1 1 =` → TRUE); its negation is NEQ, also written `!=`",
    },
    Hint {
        answers: HintFor::Names(&["<>", "/=", "~="]),
        text: "inequality is NEQ, also written `!=` (`1 2 !=` → TRUE)",
    },
    Hint {
        answers: HintFor::Names(&["REDUCE", "INJECT", "ACCUMULATE", "FOLDL"]),
        text: "a reduction is FOLD: the Vector, the start value, then the code (`[ 1 2 3 ] 0 { + } FOLD` → 6/1); SUM adds a whole Vector",
    },
    Hint {
        answers: HintFor::Names(&["FOR", "WHILE", "LOOP", "EACH", "FOREACH", "TIMES", "REPEAT", "DO"]),
        text: "Ajisai has no loops: RANGE makes a Vector and MAP, FILTER and FOLD walk it (`[ 1 4 ] RANGE { 2 * } MAP` → [ 2/1 4/1 6/1 8/1 ]); a User Word may also call itself, and a call in last position repeats without growing",
    },
    Hint {
        answers: HintFor::Names(&["APPEND", "PUSH", "CONS"]),
        text: "Vectors are joined with CONCAT (`[ 1 2 ] [ 3 ] CONCAT` → [ 1/1 2/1 3/1 ]), Strings with JOIN (`[ 'ab' 'c' ] JOIN` → 'abc')",
    },
    Hint {
        answers: HintFor::Names(&["SPLIT"]),
        text: "a String is split at a separator with TOKENIZE (`'a,b' ',' TOKENIZE` → [ 'a' 'b' ]), into characters with CHARS",
    },
    Hint {
        answers: HintFor::Names(&["FIRST", "HEAD", "LAST", "NTH", "AT"]),
        text: "elements are read with GET, 0 the first and -1 the last (`[ 10 20 30 ] -1 GET` → 30/1); TAKE gives the first or last n",
    },
    Hint {
        answers: HintFor::Names(&["LET", "SET", "VAR", "DEFINE", "DEFUN", "FUNCTION", "FN", ":"]),
        text: "a value is named with BIND (`5 'X' BIND X X +` → 10/1), a Word defined with DEF (`{ 2 * } 'DOUBLE' DEF 21 DOUBLE` → 42/1)",
    },
    Hint {
        answers: HintFor::Names(&["NULL", "NONE", "UNDEFINED", "NULL?", "ISNIL", "IS-NIL"]),
        text: "absence is NIL, which carries a reason: NIL? tests for it and NIL-REASON reads the reason, both keeping the value (`1 0 / NIL-REASON` → NIL 'divisionByZero')",
    },
    Hint {
        answers: HintFor::Trap(Trap::DoubleQuoted),
        text: "strings are single-quoted (`'hello' CHARS LENGTH` → 5/1)",
    },
    Hint {
        answers: HintFor::Trap(Trap::VentAfterNumber),
        text: "`^` is VENT (it skips the next unit unless the top is NIL), not a power: powers are POW (`2 10 POW` → 1024/1)",
    },
];

inventory::submit! {
    HintRegistration { hints: HINTS }
}
