//! Content identity of User Words (docs/reference/dictionary.md#content-identity).
//!
//! A Word's identity is a SHA-256 digest over the normalized shape of its body and
//! the identities of the Words it depends on, so it does not change when a
//! definition is reformatted or its Word names are spelled in another case or by
//! alias, and it changes for every dependent when a dependency changes. Words that
//! reference each other are digested together, one strongly connected component
//! at a time. Everything here is iterative: bodies nest and dependency chains run
//! arbitrarily deep.

use crate::code::{Block, Item};
use crate::contract::number_item_value;
use crate::machine::Dictionary;
use crate::number::{Int, Number};
use crate::word::registry;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::sync::Arc;

/// Separator before a plain atom.
const ATOM: u8 = 0x1F;
/// Separator before a reference.
const REFERENCE: u8 = 0x1E;
/// Between a member's index and its bytes in the combined digest.
const MEMBER_START: u8 = 0x1D;
/// After a member's bytes in the combined digest.
const MEMBER_END: u8 = 0x1C;

/// One User Word as identity sees it.
#[derive(Clone, Copy, Debug)]
pub struct WordDef<'a> {
    /// Normalized name.
    pub name: &'a str,
    /// The stored body.
    pub body: &'a Block,
    /// User Words recorded as dependencies at definition time (normalized).
    pub deps: &'a [Arc<str>],
    /// Definition order (breaks ties between identical members of a cycle).
    pub order: u64,
}

/// `H(bytes)`: `sha256:` and the 64 lowercase hex digits of SHA-256.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The content identity of every User Word of `dict`, by normalized name.
pub fn identities(dict: &Dictionary) -> BTreeMap<String, String> {
    let words = dict.words();
    let defs: Vec<WordDef<'_>> = words
        .iter()
        .map(|w| WordDef {
            name: &w.name,
            body: &w.body,
            deps: &w.deps,
            order: w.order,
        })
        .collect();
    identities_of(&defs)
}

/// A shape atom: plain bytes, or a reference to another Word (by index).
enum Atom {
    Plain(Vec<u8>),
    Ref(usize),
}

fn hex(i: &Int, out: &mut Vec<u8>) {
    let mut s = String::new();
    i.with_ref(|r| {
        if r.negative {
            s.push('-');
        }
        match r.limbs.split_last() {
            None => s.push('0'),
            Some((top, rest)) => {
                let _ = write!(s, "{top:x}");
                for limb in rest.iter().rev() {
                    let _ = write!(s, "{limb:016x}");
                }
            }
        }
    });
    out.extend_from_slice(s.as_bytes());
}

fn plain(tag: &str, text: &str) -> Atom {
    let mut b = Vec::with_capacity(tag.len() + text.len());
    b.extend_from_slice(tag.as_bytes());
    b.extend_from_slice(text.as_bytes());
    Atom::Plain(b)
}

/// The shape of one body (step 1 of docs/reference/dictionary.md#content-identity). `resolve` maps
/// a normalized Word name to the index of the recorded dependency it references.
fn shape(body: &Block, resolve: &dyn Fn(&str) -> Option<usize>) -> Vec<Atom> {
    let reg = registry();
    let mut atoms = Vec::new();
    let token = |item: &Item, in_vector: bool, atoms: &mut Vec<Atom>| match item {
        Item::Number { lexeme, .. } => match number_item_value(item) {
            Some(Number::Rat(r)) => {
                let mut b = vec![b'N'];
                hex(r.numer(), &mut b);
                b.push(b'/');
                hex(r.denom(), &mut b);
                atoms.push(Atom::Plain(b));
            }
            _ => atoms.push(plain("n", lexeme)),
        },
        Item::Str { text, .. } => atoms.push(plain("S", text)),
        Item::Name { name, .. } if in_vector => match name.written.to_uppercase().as_str() {
            upper @ ("TRUE" | "FALSE" | "NIL") => atoms.push(plain("G", upper)),
            _ => atoms.push(plain("D", &name.written)),
        },
        Item::Name { name, .. } => {
            if let Some(i) = resolve(&name.normalized) {
                atoms.push(Atom::Ref(i));
            } else if let Some(id) = reg.lookup(&name.normalized) {
                atoms.push(plain("G", reg.spec(id).name));
            } else {
                atoms.push(plain("F", &name.normalized));
            }
        }
        Item::Vent { .. } => atoms.push(plain("^", "")),
        Item::Bar { .. } => atoms.push(plain("|", "")),
        Item::LineBreak { .. } => atoms.push(plain("\n", "")),
        Item::Vector { .. } | Item::Block { .. } => {}
    };
    let items = body.items();
    for statement in items.split(Item::is_line_break).filter(|s| !s.is_empty()) {
        atoms.push(plain("\n", ""));
        // (run, next index, directly inside a vector literal, closing atom)
        let mut stack: Vec<(&[Item], usize, bool, &str)> = vec![(statement, 0, false, "")];
        while let Some(top) = stack.last_mut() {
            let (run, i, in_vector, close) = *top;
            if i >= run.len() {
                if !close.is_empty() {
                    atoms.push(plain(close, ""));
                }
                stack.pop();
                continue;
            }
            top.1 += 1;
            match &run[i] {
                Item::Vector { items: inner, .. } => {
                    atoms.push(plain("[", ""));
                    stack.push((inner, 0, true, "]"));
                }
                Item::Block { block, .. } => {
                    atoms.push(plain("{", ""));
                    stack.push((block.items(), 0, false, "}"));
                }
                item => token(item, in_vector, &mut atoms),
            }
        }
    }
    atoms
}

fn serialize(atoms: &[Atom], reference: &dyn Fn(usize) -> String) -> Vec<u8> {
    let mut out = Vec::new();
    for a in atoms {
        match a {
            Atom::Plain(b) => {
                out.push(ATOM);
                out.extend_from_slice(b);
            }
            Atom::Ref(i) => {
                out.push(REFERENCE);
                out.extend_from_slice(reference(*i).as_bytes());
            }
        }
    }
    out
}

/// Strongly connected components (Tarjan, iterative), visiting nodes and their
/// successors in the given order; components come out dependencies first.
fn components(succ: &[Vec<usize>], roots: &[usize]) -> Vec<Vec<usize>> {
    const UNVISITED: usize = usize::MAX;
    let n = succ.len();
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0usize;
    let mut out = Vec::new();
    for &root in roots {
        if index[root] != UNVISITED {
            continue;
        }
        // (node, next successor position)
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            if let Some(&w) = succ[v].get(*pos) {
                *pos += 1;
                if index[w] == UNVISITED {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(comp);
            }
        }
    }
    out
}

/// The content identity of every Word of `words` (names unique, normalized).
/// Recorded dependencies that are not among `words` are treated as plain names.
pub fn identities_of(words: &[WordDef<'_>]) -> BTreeMap<String, String> {
    // Nodes in ascending name order.
    let mut sorted: Vec<usize> = (0..words.len()).collect();
    sorted.sort_by(|&a, &b| words[a].name.cmp(words[b].name));
    let by_name: HashMap<&str, usize> =
        words.iter().enumerate().map(|(i, w)| (w.name, i)).collect();

    let shapes: Vec<Vec<Atom>> = words
        .iter()
        .map(|w| {
            let resolve = |name: &str| {
                if name == w.name || !w.deps.iter().any(|d| &**d == name) {
                    return None;
                }
                by_name.get(name).copied()
            };
            shape(w.body, &resolve)
        })
        .collect();
    let succ: Vec<Vec<usize>> = shapes
        .iter()
        .map(|atoms| {
            let mut s: Vec<usize> = atoms
                .iter()
                .filter_map(|a| if let Atom::Ref(i) = a { Some(*i) } else { None })
                .collect();
            s.sort_by(|&a, &b| words[a].name.cmp(words[b].name));
            s.dedup();
            s
        })
        .collect();

    let mut identity: Vec<Option<String>> = vec![None; words.len()];
    for comp in components(&succ, &sorted) {
        let mut member_of: HashMap<usize, usize> = HashMap::new();
        for &m in &comp {
            member_of.insert(m, usize::MAX);
        }
        let outside = |i: usize| format!("I{}", identity[i].as_deref().unwrap_or(""));
        let mut ranked: Vec<(String, u64, &str, usize)> = comp
            .iter()
            .map(|&m| {
                let pre = serialize(&shapes[m], &|i| {
                    if member_of.contains_key(&i) {
                        "C?".to_string()
                    } else {
                        outside(i)
                    }
                });
                (digest(&pre), words[m].order, words[m].name, m)
            })
            .collect();
        ranked.sort();
        for (pos, r) in ranked.iter().enumerate() {
            member_of.insert(r.3, pos);
        }
        let mut combined: Vec<u8> = Vec::new();
        for (pos, r) in ranked.iter().enumerate() {
            let bytes = serialize(&shapes[r.3], &|i| match member_of.get(&i) {
                Some(p) => format!("P{p}"),
                None => outside(i),
            });
            combined.extend_from_slice(pos.to_string().as_bytes());
            combined.push(MEMBER_START);
            combined.extend_from_slice(&bytes);
            combined.push(MEMBER_END);
        }
        let combined = digest(&combined);
        for (pos, r) in ranked.iter().enumerate() {
            identity[r.3] = Some(digest(format!("{combined}:{pos}").as_bytes()));
        }
    }
    words
        .iter()
        .zip(identity)
        .map(|(w, id)| (w.name.to_string(), id.unwrap_or_default()))
        .collect()
}
