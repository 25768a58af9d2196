//! Line pointers (PostgreSQL's ItemIdData): 4 bytes each, packed exactly as
//! PostgreSQL packs them on a little-endian machine: 15 bits of offset, 2 bits of
//! state, 15 bits of length.
//!
//! For a redirect pointer the offset field holds the line pointer number it
//! redirects to and the length is zero.

/// The state of a line pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LpFlags {
    /// Free for reuse; points at nothing.
    Unused = 0,
    /// Points at a tuple's storage.
    Normal = 1,
    /// Redirects to another line pointer on the same page (HOT).
    Redirect = 2,
    /// The tuple is gone, but index entries may still reference this pointer.
    Dead = 3,
}

/// One line pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemId(pub u32);

impl ItemId {
    /// An unused pointer.
    pub const UNUSED: ItemId = ItemId(0);

    /// A pointer with the given fields.
    pub fn new(off: u16, flags: LpFlags, len: u16) -> ItemId {
        ItemId((off as u32 & 0x7FFF) | ((flags as u32) << 15) | ((len as u32 & 0x7FFF) << 17))
    }

    /// A normal pointer to `len` bytes at `off`.
    pub fn normal(off: u16, len: u16) -> ItemId {
        ItemId::new(off, LpFlags::Normal, len)
    }

    /// A redirect to line pointer `target`.
    pub fn redirect(target: u16) -> ItemId {
        ItemId::new(target, LpFlags::Redirect, 0)
    }

    /// A dead pointer (storage released).
    pub fn dead() -> ItemId {
        ItemId::new(0, LpFlags::Dead, 0)
    }

    /// Byte offset of the item within the page (or redirect target).
    pub fn off(self) -> u16 {
        (self.0 & 0x7FFF) as u16
    }

    /// Length of the item in bytes.
    pub fn len(self) -> u16 {
        ((self.0 >> 17) & 0x7FFF) as u16
    }

    /// Whether the item has no bytes (true for every non-normal pointer).
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The pointer's state.
    pub fn flags(self) -> LpFlags {
        match (self.0 >> 15) & 3 {
            0 => LpFlags::Unused,
            1 => LpFlags::Normal,
            2 => LpFlags::Redirect,
            _ => LpFlags::Dead,
        }
    }

    /// Whether the pointer is in use in any way (not unused).
    pub fn is_used(self) -> bool {
        self.flags() != LpFlags::Unused
    }

    /// Whether the pointer points at tuple storage.
    pub fn is_normal(self) -> bool {
        self.flags() == LpFlags::Normal
    }

    /// Whether the pointer redirects to another.
    pub fn is_redirect(self) -> bool {
        self.flags() == LpFlags::Redirect
    }

    /// Whether the pointer is dead.
    pub fn is_dead(self) -> bool {
        self.flags() == LpFlags::Dead
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_pack_like_postgres() {
        let lp = ItemId::normal(8000, 160);
        assert_eq!(lp.off(), 8000);
        assert_eq!(lp.len(), 160);
        assert_eq!(lp.flags(), LpFlags::Normal);
        // PostgreSQL: lp_off:15 | lp_flags:2 | lp_len:15, little-endian bitfields.
        assert_eq!(lp.0, 8000 | (1 << 15) | (160 << 17));
        assert_eq!(ItemId::redirect(7).off(), 7);
        assert!(ItemId::dead().is_dead());
        assert!(!ItemId::UNUSED.is_used());
    }
}
