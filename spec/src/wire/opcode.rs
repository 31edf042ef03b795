//! The opcode table: one entry per supported BTH opcode (IBTA Vol 1 Table 38, Annex A17.9 for
//! CNP) saying which extended headers follow the BTH and whether a payload may follow them.
//! The RTL parser is generated from this table; nothing else lists opcodes.

use super::ib;

/// Extended transport header kinds, in the order they follow the BTH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExtHeader {
    Reth,
    Aeth,
    ImmDt,
    Ieth,
    Deth,
    AtomicEth,
    AtomicAckEth,
    CnpReserved,
}

impl ExtHeader {
    /// Header length in bytes.
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(self) -> usize {
        match self {
            ExtHeader::Reth => ib::RETH_LEN,
            ExtHeader::Aeth => ib::AETH_LEN,
            ExtHeader::ImmDt => ib::IMMDT_LEN,
            ExtHeader::Ieth => ib::IETH_LEN,
            ExtHeader::Deth => ib::DETH_LEN,
            ExtHeader::AtomicEth => ib::ATOMIC_ETH_LEN,
            ExtHeader::AtomicAckEth => ib::ATOMIC_ACK_ETH_LEN,
            ExtHeader::CnpReserved => ib::CNP_RESERVED_LEN,
        }
    }
}

/// One row of the opcode table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opcode {
    pub code: u8,
    /// Name as Wireshark and the IBTA write it, for humans.
    pub name: &'static str,
    pub ext: &'static [ExtHeader],
    pub payload: bool,
}

impl Opcode {
    /// Total length of the extended headers.
    pub fn ext_len(&self) -> usize {
        self.ext.iter().map(|e| e.len()).sum()
    }

    /// Byte offset of extended header `kind` from the end of the BTH, if the opcode has it.
    pub fn ext_offset(&self, kind: ExtHeader) -> Option<usize> {
        let mut at = 0;
        for &e in self.ext {
            if e == kind {
                return Some(at);
            }
            at += e.len();
        }
        None
    }

    /// Look an opcode up; `None` for reserved or unsupported codes.
    pub fn lookup(code: u8) -> Option<&'static Opcode> {
        OPCODES.iter().find(|o| o.code == code)
    }
}

use ExtHeader::*;

const fn op(code: u8, name: &'static str, ext: &'static [ExtHeader], payload: bool) -> Opcode {
    Opcode { code, name, ext, payload }
}

/// Every opcode this NIC understands: all RC opcodes of IBTA 1.4, UD SEND, and the RoCE v2 CNP.
pub const OPCODES: &[Opcode] = &[
    op(0x00, "RC SEND First", &[], true),
    op(0x01, "RC SEND Middle", &[], true),
    op(0x02, "RC SEND Last", &[], true),
    op(0x03, "RC SEND Last with Immediate", &[ImmDt], true),
    op(0x04, "RC SEND Only", &[], true),
    op(0x05, "RC SEND Only with Immediate", &[ImmDt], true),
    op(0x06, "RC RDMA WRITE First", &[Reth], true),
    op(0x07, "RC RDMA WRITE Middle", &[], true),
    op(0x08, "RC RDMA WRITE Last", &[], true),
    op(0x09, "RC RDMA WRITE Last with Immediate", &[ImmDt], true),
    op(0x0A, "RC RDMA WRITE Only", &[Reth], true),
    op(0x0B, "RC RDMA WRITE Only with Immediate", &[Reth, ImmDt], true),
    op(0x0C, "RC RDMA READ Request", &[Reth], false),
    op(0x0D, "RC RDMA READ Response First", &[Aeth], true),
    op(0x0E, "RC RDMA READ Response Middle", &[], true),
    op(0x0F, "RC RDMA READ Response Last", &[Aeth], true),
    op(0x10, "RC RDMA READ Response Only", &[Aeth], true),
    op(0x11, "RC Acknowledge", &[Aeth], false),
    op(0x12, "RC ATOMIC Acknowledge", &[Aeth, AtomicAckEth], false),
    op(0x13, "RC CmpSwap", &[AtomicEth], false),
    op(0x14, "RC FetchAdd", &[AtomicEth], false),
    op(0x16, "RC SEND Last with Invalidate", &[Ieth], true),
    op(0x17, "RC SEND Only with Invalidate", &[Ieth], true),
    op(0x64, "UD SEND Only", &[Deth], true),
    op(0x65, "UD SEND Only with Immediate", &[Deth, ImmDt], true),
    op(0x81, "CNP", &[CnpReserved], false),
];

/// Longest extended-header chain in the table (AtomicETH, 28 bytes).
pub fn max_ext_len() -> usize {
    OPCODES.iter().map(Opcode::ext_len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        for w in OPCODES.windows(2) {
            assert!(w[0].code < w[1].code, "{:#x} then {:#x}", w[0].code, w[1].code);
        }
        assert_eq!(max_ext_len(), 28);
    }

    #[test]
    fn reserved_codes_are_unknown() {
        for code in [0x15u8, 0x18, 0x1F, 0x20, 0x60, 0x80, 0xFF] {
            assert!(Opcode::lookup(code).is_none(), "{code:#x}");
        }
    }
}
