//! Hash tables that grow without stopping the world.
//!
//! A table of std (or hashbrown) grows by rehashing every entry at once: at a million
//! entries that is milliseconds in which the run checks nothing — longer than the whole
//! gap allowed between two checks of the interrupt flag
//! (docs/reference/pricing-and-limits.md#calibration). The tables a run or a render fills
//! with as many entries as its values have parts (memos by address, the classes of
//! `UNIQUE`, the pairs an equality has scheduled) are griddle's, which moves a few
//! entries at every insert instead. Their keys are addresses or hashes the engine
//! computed, never bytes a program chose, so the fast Fx hash is safe for them; a table
//! keyed by a program's names takes [`NamedTable`], with std's randomly keyed hasher.

/// A growing table keyed by addresses or engine-computed hashes.
pub type Memo<K, V> = griddle::HashMap<K, V, rustc_hash::FxBuildHasher>;

/// A growing set of addresses or engine-computed hashes.
pub type MemoSet<K> = griddle::HashSet<K, rustc_hash::FxBuildHasher>;

/// A growing table keyed by text a program chose (names): std's randomly keyed hasher,
/// so no program can choose names that collide.
pub type NamedTable<K, V> = griddle::HashMap<K, V, std::collections::hash_map::RandomState>;
