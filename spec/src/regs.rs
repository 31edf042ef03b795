//! BAR0: the NIC's register map, as self-describing blocks (the Corundum convention).
//!
//! Every block starts with three words — type, version, and the BAR offset of the next block
//! (0 ends the chain) — followed by its registers. The driver walks the chain from offset 0,
//! uses the blocks it knows by type and version, and skips the rest, so a newer card still
//! works with an older driver and the other way round. All registers are 32 bits wide, little
//! endian, at 4-byte aligned offsets; reads of offsets no block defines return 0 and writes
//! there are ignored (AXI4-Lite OKAY either way, as a PCIe BAR must not fault).
//!
//! This table is the only place offsets are written down: the register file RTL
//! (`rnic_hdl::csr`) is generated from it and the driver reads it.

/// Offsets of the block header words, relative to the block's base.
pub const BLOCK_TYPE: u32 = 0x00;
pub const BLOCK_VERSION: u32 = 0x04;
pub const BLOCK_NEXT: u32 = 0x08;
/// First register after the header.
pub const BLOCK_REGS: u32 = 0x0C;

/// Bits of the BAR0 address decoded by the register file (a 4 KiB BAR).
pub const BAR0_ADDR_BITS: usize = 12;

/// `magic` of the ID block: "RNIC" in ASCII, read as a little-endian word.
pub const MAGIC: u32 = u32::from_le_bytes(*b"RNIC");

/// What a register is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Fixed by the build (a capability); the value is in `Reg::reset`.
    Const,
    /// Read-only status from the datapath (counters wrap at 2^32).
    Status,
    /// Read/write control, starting from `Reg::reset`.
    Control,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reg {
    pub name: &'static str,
    /// Offset from the block's base.
    pub offset: u32,
    pub access: Access,
    /// Value of a constant, or the reset value of a control register.
    pub reset: u32,
    pub doc: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub name: &'static str,
    pub kind: u32,
    pub version: u32,
    /// BAR0 offset of the block header.
    pub base: u32,
    pub regs: &'static [Reg],
}

/// Block types.
pub const TYPE_ID: u32 = 0x0001_0000;
pub const TYPE_PORT: u32 = 0x0002_0000;
pub const TYPE_RX_COUNTERS: u32 = 0x0003_0000;
pub const TYPE_TX_COUNTERS: u32 = 0x0004_0000;

/// Feature bits of the ID block's `features` register: what this build can do. A bit is set
/// only when the datapath implements the feature end to end.
pub mod feature {
    /// RoCE v2 receive parsing and checks (every opcode of the table, ICRC, drop counters).
    pub const RX_PARSE: u32 = 1 << 0;
    /// RoCE v2 transmit packet engine (headers, ICRC, FCS).
    pub const TX_ENGINE: u32 = 1 << 1;
    /// IPv6 as well as IPv4.
    pub const IPV6: u32 = 1 << 2;
    /// 802.1Q VLAN tags with PCP.
    pub const VLAN: u32 = 1 << 3;
    /// Soft-MAC FCS insert and check (`port.control.fcs`).
    pub const SOFT_FCS: u32 = 1 << 4;
    /// Names, for `rnic info`.
    pub const NAMES: [(u32, &str); 5] =
        [(RX_PARSE, "rx-parse"), (TX_ENGINE, "tx-engine"), (IPV6, "ipv6"), (VLAN, "vlan"), (SOFT_FCS, "soft-fcs")];
}

/// Bit 0 of `port.control`: soft-MAC mode, the NIC appends and checks the FCS.
pub const PORT_CONTROL_FCS: u32 = 1 << 0;

const fn reg(name: &'static str, offset: u32, access: Access, reset: u32, doc: &'static str) -> Reg {
    Reg { name, offset, access, reset, doc }
}

const RX_COUNTER_REGS: [Reg; 17] = {
    use crate::wire::rx::DropReason;
    let mut regs = [reg("accepted", BLOCK_REGS, Access::Status, 0, "frames accepted"); 17];
    let mut i = 0;
    while i < 15 {
        let r = DropReason::ALL[i];
        // Counter index = reason code, at BLOCK_REGS + 4 * index.
        regs[i + 1] = reg(r.name(), BLOCK_REGS + 4 * r.code() as u32, Access::Status, 0, "frames dropped for this reason");
        i += 1;
    }
    regs[16] = reg("no_buffer", BLOCK_REGS + 4 * 16, Access::Status, 0, "accepted frames dropped whole: receive buffer full");
    regs
};

/// The register map, in chain order.
pub const BLOCKS: &[Block] = &[
    Block {
        name: "id",
        kind: TYPE_ID,
        version: 1,
        base: 0x000,
        regs: &[
            reg("magic", 0x0C, Access::Const, MAGIC, "\"RNIC\": this is an rnic card"),
            reg("datapath_bits", 0x10, Access::Const, 512, "width of the datapath"),
            reg("clock_khz", 0x14, Access::Const, 250_000, "core clock"),
            reg("max_payload", 0x18, Access::Const, crate::wire::MAX_PAYLOAD as u32, "largest path MTU"),
            reg("qps", 0x1C, Access::Const, 0, "queue pairs (0: no queue manager in this build)"),
            reg("cqs", 0x20, Access::Const, 0, "completion queues"),
            reg("mrs", 0x24, Access::Const, 0, "memory regions"),
            reg(
                "features",
                0x28,
                Access::Const,
                feature::RX_PARSE | feature::TX_ENGINE | feature::IPV6 | feature::VLAN | feature::SOFT_FCS,
                "feature bits (regs::feature)",
            ),
        ],
    },
    Block {
        name: "port",
        kind: TYPE_PORT,
        version: 1,
        base: 0x100,
        regs: &[reg("control", 0x0C, Access::Control, PORT_CONTROL_FCS, "bit 0: soft-MAC FCS insert and check")],
    },
    Block { name: "rx_counters", kind: TYPE_RX_COUNTERS, version: 1, base: 0x200, regs: &RX_COUNTER_REGS },
    Block {
        name: "tx_counters",
        kind: TYPE_TX_COUNTERS,
        version: 1,
        base: 0x300,
        regs: &[reg("frames", 0x0C, Access::Status, 0, "frames handed to the MAC")],
    },
];

impl Block {
    /// BAR0 offset of the next block, 0 for the last.
    pub fn next(&self) -> u32 {
        let i = BLOCKS.iter().position(|b| b.base == self.base).expect("block of the map");
        BLOCKS.get(i + 1).map_or(0, |b| b.base)
    }

    pub fn reg(&self, name: &str) -> Option<&'static Reg> {
        self.regs.iter().find(|r| r.name == name)
    }
}

/// The block called `name`.
pub fn block(name: &str) -> Option<&'static Block> {
    BLOCKS.iter().find(|b| b.name == name)
}

/// BAR0 offset of register `reg` of block `block`.
pub fn addr(block_name: &str, reg_name: &str) -> Option<u32> {
    let b = block(block_name)?;
    Some(b.base + b.reg(reg_name)?.offset)
}

/// What a freshly reset card returns for every defined BAR0 word: `(offset, value)` for block
/// headers, constants and control registers (status registers are left out).
pub fn reset_image() -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for b in BLOCKS {
        out.push((b.base + BLOCK_TYPE, b.kind));
        out.push((b.base + BLOCK_VERSION, b.version));
        out.push((b.base + BLOCK_NEXT, b.next()));
        for r in b.regs.iter().filter(|r| r.access != Access::Status) {
            out.push((b.base + r.offset, r.reset));
        }
    }
    out
}

/// Number of registers of one kind in the map (sizes the register file's tables).
pub const fn count(access: Access) -> usize {
    let mut n = 0;
    let mut b = 0;
    while b < BLOCKS.len() {
        let mut r = 0;
        while r < BLOCKS[b].regs.len() {
            if BLOCKS[b].regs[r].access as u8 == access as u8 {
                n += 1;
            }
            r += 1;
        }
        b += 1;
    }
    n
}

/// Registers of one kind in map order, with their BAR0 offsets. A status register's position
/// in this list is its status index (what the register file asks the datapath for).
pub fn registers(access: Access) -> Vec<(u32, &'static Reg)> {
    BLOCKS.iter().flat_map(|b| b.regs.iter().filter(move |r| r.access == access).map(move |r| (b.base + r.offset, r))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_is_consistent() {
        let mut seen = std::collections::HashSet::new();
        for (i, b) in BLOCKS.iter().enumerate() {
            assert_eq!(b.base % 4, 0);
            if i > 0 {
                assert!(b.base > BLOCKS[i - 1].base, "blocks in address order");
            }
            let end = BLOCKS.get(i + 1).map_or(1 << BAR0_ADDR_BITS, |n| n.base);
            for r in b.regs {
                assert_eq!(r.offset % 4, 0, "{}.{} aligned", b.name, r.name);
                assert!(r.offset >= BLOCK_REGS, "{}.{} after the header", b.name, r.name);
                assert!(b.base + r.offset < end, "{}.{} inside its block", b.name, r.name);
                assert!(seen.insert(b.base + r.offset), "{}.{} overlaps", b.name, r.name);
            }
        }
        assert_eq!(BLOCKS[0].kind, TYPE_ID, "the chain starts with the ID block at 0");
        assert_eq!(BLOCKS.last().unwrap().next(), 0);
    }

    #[test]
    fn rx_counters_follow_the_reason_codes() {
        let b = block("rx_counters").unwrap();
        for r in crate::wire::rx::DropReason::ALL {
            assert_eq!(b.reg(r.name()).unwrap().offset, BLOCK_REGS + 4 * r.code() as u32);
        }
        assert_eq!(addr("rx_counters", "no_buffer"), Some(0x200 + BLOCK_REGS + 64));
        assert_eq!(MAGIC.to_le_bytes(), *b"RNIC");
    }
}
