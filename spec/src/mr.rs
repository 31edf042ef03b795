//! Memory regions and the access check both sides of an RDMA operation make: the requester
//! checks its local key before reading or writing a local buffer, the responder checks the
//! remote key before a single byte is written or read (IBTA Vol 1 §10.6, C9-88 ff.).
//!
//! A region is (key, base, length, access, protection domain). Addresses are device addresses
//! (IOVAs): with VFIO the driver maps every buffer at an IOVA it chooses, so a region needs no
//! translation table and the IOMMU enforces isolation. The card keeps regions in a table of
//! `2^n` slots; a key's low bits name its slot and the whole key must match what the slot
//! holds, so a stale key (same slot, other upper bits) is refused after re-registration.

/// Access flags of a region (the verbs `IBV_ACCESS_*` the card enforces).
pub mod access {
    pub const LOCAL_WRITE: u8 = 1 << 0;
    pub const REMOTE_WRITE: u8 = 1 << 1;
    pub const REMOTE_READ: u8 = 1 << 2;
    pub const REMOTE_ATOMIC: u8 = 1 << 3;
    /// Local reads need no flag (every region allows them).
    pub const LOCAL_READ: u8 = 0;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryRegion {
    pub key: u32,
    pub base: u64,
    pub length: u32,
    pub access: u8,
    pub pd: u16,
}

/// Why an access was refused, in the order the checks are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum AccessError {
    /// No region holds this key.
    UnknownKey = 1,
    /// The region belongs to another protection domain.
    WrongPd = 2,
    /// The region does not allow this kind of access.
    NoAccess = 3,
    /// [addr, addr + len) is not inside the region.
    OutOfBounds = 4,
}

impl AccessError {
    pub fn from_code(c: u8) -> Option<AccessError> {
        use AccessError::*;
        [UnknownKey, WrongPd, NoAccess, OutOfBounds].into_iter().find(|e| *e as u8 == c)
    }
}

/// Slot of a key in a table of `slots` (a power of two).
pub fn slot(key: u32, slots: usize) -> usize {
    key as usize & (slots - 1)
}

/// The check: may `len` bytes at `addr` be accessed with `key` from protection domain `pd`,
/// for the access flags `need`? A zero-length access is allowed without checking anything
/// (an RDMA operation of length 0 carries no usable key, C9-88).
pub fn check(table: &[Option<MemoryRegion>], key: u32, pd: u16, addr: u64, len: u32, need: u8) -> Result<(), AccessError> {
    if len == 0 {
        return Ok(());
    }
    let mr = table[slot(key, table.len())].filter(|m| m.key == key).ok_or(AccessError::UnknownKey)?;
    if mr.pd != pd {
        return Err(AccessError::WrongPd);
    }
    if mr.access & need != need {
        return Err(AccessError::NoAccess);
    }
    let end = addr as u128 + len as u128;
    if addr < mr.base || end > mr.base as u128 + mr.length as u128 {
        return Err(AccessError::OutOfBounds);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_in_order() {
        let mr = MemoryRegion { key: 0x1234_5601, base: 0x10_0000, length: 4096, access: access::REMOTE_WRITE, pd: 3 };
        let mut table = vec![None; 256];
        table[slot(mr.key, 256)] = Some(mr);
        let ok = |addr, len, need| check(&table, mr.key, 3, addr, len, need);
        assert_eq!(ok(0x10_0000, 4096, access::REMOTE_WRITE), Ok(()));
        assert_eq!(ok(0x10_0001, 4096, access::REMOTE_WRITE), Err(AccessError::OutOfBounds));
        assert_eq!(ok(0x0F_FFFF, 1, access::REMOTE_WRITE), Err(AccessError::OutOfBounds));
        assert_eq!(ok(u64::MAX, 2, access::REMOTE_WRITE), Err(AccessError::OutOfBounds), "no wrap-around");
        assert_eq!(ok(0x10_0000, 1, access::REMOTE_READ), Err(AccessError::NoAccess));
        assert_eq!(check(&table, mr.key, 4, 0x10_0000, 1, 0), Err(AccessError::WrongPd));
        assert_eq!(check(&table, mr.key ^ 0x100, 3, 0x10_0000, 1, 0), Err(AccessError::UnknownKey), "stale key");
        assert_eq!(check(&table, 0xDEAD, 9, 0, 0, access::REMOTE_WRITE), Ok(()), "zero length");
    }
}
