//! Wire formats of RoCE v2 (IBTA Vol 1 ch. 9 and Annex A17) and the Ethernet/IP/UDP below it.
//!
//! Each header has `pack` (append to a buffer) and `parse` (from the start of a slice, returning
//! the header and its length). Multi-byte fields are big-endian on the wire; the CRC values (FCS
//! and ICRC) are appended little-endian.

pub mod crc;
pub mod eth;
pub mod ib;
pub mod ip;
pub mod opcode;
pub mod packet;
pub mod psn;
pub mod rx;
pub mod tx;
pub mod udp;

pub use crc::{crc32, fcs, icrc};
pub use opcode::{ExtHeader, Opcode};

/// UDP destination port of RoCE v2 (IANA).
pub const ROCE_UDP_PORT: u16 = 4791;
/// Largest InfiniBand path MTU, which bounds the payload of one packet.
pub const MAX_PAYLOAD: usize = 4096;
/// Smallest Ethernet frame without FCS (64 bytes on the wire including the 4-byte FCS).
pub const MIN_FRAME_NO_FCS: usize = 60;

/// Why a header could not be parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireError {
    /// The slice ends before the header does.
    Truncated { need: usize, have: usize },
    /// A field holds a value this header cannot carry (e.g. IPv4 version != 4).
    BadField(&'static str),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Truncated { need, have } => {
                write!(f, "truncated header: need {need} bytes, have {have}")
            }
            WireError::BadField(field) => write!(f, "bad header field: {field}"),
        }
    }
}

impl std::error::Error for WireError {}

pub(crate) fn need(buf: &[u8], len: usize) -> Result<(), WireError> {
    if buf.len() < len {
        Err(WireError::Truncated { need: len, have: buf.len() })
    } else {
        Ok(())
    }
}

pub(crate) fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}
pub(crate) fn be24(b: &[u8]) -> u32 {
    u32::from_be_bytes([0, b[0], b[1], b[2]])
}
pub(crate) fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}
pub(crate) fn be64(b: &[u8]) -> u64 {
    u64::from_be_bytes(b[..8].try_into().expect("8 bytes"))
}
pub(crate) fn put24(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes()[1..]);
}

/// A captured frame as it crossed the wire: a capture taken on the sending host holds frames
/// before the MAC padded them to the 60-byte minimum, so replay pads them the same way. Frames
/// that carry their FCS were captured after the MAC and are returned unchanged.
pub fn as_on_wire(frame: &[u8], has_fcs: bool) -> Vec<u8> {
    let mut f = frame.to_vec();
    if !has_fcs && f.len() < MIN_FRAME_NO_FCS {
        f.resize(MIN_FRAME_NO_FCS, 0);
    }
    f
}
