//! Page checksums.
//!
//! PostgreSQL computes a 16-bit checksum from an FNV-1a-like hash of the page with
//! the checksum field zeroed, mixed with the block number so that a page written to
//! the wrong place is caught too. sluice keeps the 16-bit field and the block-number
//! mixing but uses CRC-32C (hardware accelerated through the `crc32c` crate) and folds
//! it to 16 bits. Zero is never produced, so a zero checksum on a non-zero page is
//! always an error.
//!
//! Checksums are set just before a page is written (`bufmgr` computes them on a
//! private copy) and verified just after it is read.

use sluice_common::{BlockNumber, BLCKSZ};

/// Byte range of `pd_checksum` in the page header.
const CHECKSUM_RANGE: std::ops::Range<usize> = 8..10;

/// The checksum of `page` stored as block `block`.
pub fn page_checksum(page: &[u8; BLCKSZ], block: BlockNumber) -> u16 {
    let crc = crc32c::crc32c(&page[..CHECKSUM_RANGE.start]);
    let crc = crc32c::crc32c_append(crc, &[0, 0]);
    let crc = crc32c::crc32c_append(crc, &page[CHECKSUM_RANGE.end..]);
    let mixed = crc ^ block.rotate_left(16);
    let folded = ((mixed >> 16) ^ (mixed & 0xFFFF)) as u16;
    // Reserve 0 for "no checksum", like PostgreSQL's pg_checksum_page.
    if folded == 0 {
        1
    } else {
        folded
    }
}

/// Whether `page`, read from block `block`, is intact: either entirely zero (a
/// page that was allocated but never written) or carrying the right checksum.
pub fn verify_checksum(page: &[u8; BLCKSZ], block: BlockNumber) -> bool {
    let stored = u16::from_le_bytes([page[CHECKSUM_RANGE.start], page[CHECKSUM_RANGE.start + 1]]);
    if stored == 0 {
        return page.iter().all(|&b| b == 0);
    }
    stored == page_checksum(page, block)
}

/// Stores the checksum for block `block` into `page`.
pub fn set_checksum(page: &mut [u8; BLCKSZ], block: BlockNumber) {
    let sum = page_checksum(page, block);
    page[CHECKSUM_RANGE].copy_from_slice(&sum.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_flipped_bits_and_misplaced_pages() {
        let mut page = [0u8; BLCKSZ];
        assert!(verify_checksum(&page, 3), "an all-zero page is a valid new page");
        page[100] = 42;
        assert!(!verify_checksum(&page, 3), "non-zero page without checksum");
        set_checksum(&mut page, 3);
        assert!(verify_checksum(&page, 3));
        assert!(!verify_checksum(&page, 4), "same bytes at another block");
        page[5000] ^= 0x10;
        assert!(!verify_checksum(&page, 3));
    }
}
