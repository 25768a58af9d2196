//! Combo command ids (PostgreSQL's `combocid.c`).
//!
//! A tuple header has room for one command id. The inserting transaction needs
//! the inserting command (cmin) to hide the row from earlier commands; a deleting
//! transaction needs the deleting command (cmax). When one transaction does both,
//! the header stores a *combo id* instead, an index into this per-transaction
//! table of (cmin, cmax) pairs, and sets `HEAP_COMBOCID`. Only the owning
//! transaction ever looks at command ids, so the table lives with it and dies
//! with it; nothing is written to disk.

use crate::snapshot::CommandId;
use std::collections::HashMap;

/// One transaction's combo ids.
#[derive(Clone, Debug, Default)]
pub struct ComboCids {
    pairs: Vec<(CommandId, CommandId)>,
    index: HashMap<(CommandId, CommandId), CommandId>,
}

impl ComboCids {
    /// The combo id for (cmin, cmax), creating it if new.
    pub fn combo(&mut self, cmin: CommandId, cmax: CommandId) -> CommandId {
        if let Some(&id) = self.index.get(&(cmin, cmax)) {
            return id;
        }
        let id = self.pairs.len() as CommandId;
        self.pairs.push((cmin, cmax));
        self.index.insert((cmin, cmax), id);
        id
    }

    /// The (cmin, cmax) behind `combo`. An unknown id (which only a corrupt page
    /// could produce) reads as (0, 0).
    pub fn resolve(&self, combo: CommandId) -> (CommandId, CommandId) {
        self.pairs.get(combo as usize).copied().unwrap_or((0, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_shared_and_resolved() {
        let mut c = ComboCids::default();
        let a = c.combo(0, 3);
        let b = c.combo(1, 3);
        assert_ne!(a, b);
        assert_eq!(c.combo(0, 3), a);
        assert_eq!(c.resolve(b), (1, 3));
    }
}
