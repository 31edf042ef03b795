//! Opening a card: walk BAR0's self-describing blocks (`rnic_spec::regs`), refuse what this
//! driver does not understand, read capabilities and counters.

use crate::bus::{Bus, BusError};
use rnic_spec::regs::{self, Access, BLOCK_NEXT, BLOCK_TYPE, BLOCK_VERSION, MAGIC};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceError {
    Bus(BusError),
    /// Offset 0 does not hold the rnic ID block.
    NotRnic { kind: u32, magic: u32 },
    /// A block of a known type has a version this driver does not know.
    Unsupported { block: &'static str, version: u32, supported: u32 },
    /// The next pointers do not make a forward chain inside BAR0.
    BadChain { at: u32, next: u32 },
    /// A block this driver needs is missing.
    Missing(&'static str),
    /// The card did not reach a point it must reach (what, and the register that says so).
    Stuck { what: &'static str, register: &'static str, value: u32, want: u32 },
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceError::Bus(e) => write!(f, "{e}"),
            DeviceError::NotRnic { kind, magic } => write!(
                f,
                "not an rnic card: BAR0 starts with block type {kind:#010x} and magic {magic:#010x} \
                 (expected {:#010x} and {MAGIC:#010x}); check the device address and that the bitstream is loaded",
                regs::TYPE_ID
            ),
            DeviceError::Unsupported { block, version, supported } => write!(
                f,
                "the card's {block} block is version {version}, this driver knows version {supported}: update rnic"
            ),
            DeviceError::BadChain { at, next } => {
                write!(f, "BAR0 block chain broken: block at {at:#06x} points to {next:#06x}")
            }
            DeviceError::Missing(b) => write!(f, "the card has no {b} block"),
            DeviceError::Stuck { what, register, value, want } => write!(
                f,
                "the card did not {what}: {register} stays {value:#x}, waiting for {want:#x}; \
                 check that the card is clocked and its DMA port answers, then reset it"
            ),
        }
    }
}

impl std::error::Error for DeviceError {}

/// Register reads `clear_mr` waits for the fence (each is a BAR round trip: far longer than
/// the card needs to drain a packet and its writes, and the READs and atomics queued before).
const MR_FENCE_POLLS: usize = 10_000;

impl From<BusError> for DeviceError {
    fn from(e: BusError) -> Self {
        DeviceError::Bus(e)
    }
}

/// A block found on the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundBlock {
    pub base: u32,
    pub kind: u32,
    pub version: u32,
    /// The block of `regs::BLOCKS` with this type, if the driver knows it.
    pub known: Option<&'static regs::Block>,
}

/// Capabilities from the ID block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    pub datapath_bits: u32,
    pub clock_khz: u32,
    pub max_payload: u32,
    pub qps: u32,
    pub cqs: u32,
    pub mrs: u32,
    pub features: u32,
    pub blocks: Vec<FoundBlock>,
}

impl Info {
    pub fn feature_names(&self) -> Vec<&'static str> {
        regs::feature::NAMES.iter().filter(|(bit, _)| self.features & bit != 0).map(|(_, n)| *n).collect()
    }
}

pub struct Device<B: Bus> {
    bus: B,
    blocks: Vec<FoundBlock>,
}

/// At most this many blocks: a chain longer than BAR0 has room for is broken.
const MAX_BLOCKS: usize = 64;

impl<B: Bus> Device<B> {
    /// Walk the block chain from offset 0 and check the card is one this driver can drive.
    pub fn open(mut bus: B) -> Result<Device<B>, DeviceError> {
        let kind = bus.read32(BLOCK_TYPE)?;
        let magic = bus.read32(regs::addr("id", "magic").expect("id.magic"))?;
        if kind != regs::TYPE_ID || magic != MAGIC {
            return Err(DeviceError::NotRnic { kind, magic });
        }
        let mut blocks = Vec::new();
        let mut at = 0u32;
        loop {
            let kind = bus.read32(at + BLOCK_TYPE)?;
            let version = bus.read32(at + BLOCK_VERSION)?;
            let next = bus.read32(at + BLOCK_NEXT)?;
            let known = regs::BLOCKS.iter().find(|b| b.kind == kind);
            if let Some(b) = known {
                if version != b.version {
                    return Err(DeviceError::Unsupported { block: b.name, version, supported: b.version });
                }
            }
            blocks.push(FoundBlock { base: at, kind, version, known });
            if next == 0 {
                break;
            }
            if next <= at || !next.is_multiple_of(4) || next >= 1 << regs::BAR0_ADDR_BITS || blocks.len() >= MAX_BLOCKS {
                return Err(DeviceError::BadChain { at, next });
            }
            at = next;
        }
        Ok(Device { bus, blocks })
    }

    pub fn bus(&mut self) -> &mut B {
        &mut self.bus
    }

    /// Let go of the card (a driver closing it; another may open it again).
    pub fn into_bus(self) -> B {
        self.bus
    }

    fn base(&self, name: &'static str) -> Result<(u32, &'static regs::Block), DeviceError> {
        self.blocks
            .iter()
            .find_map(|b| b.known.filter(|k| k.name == name).map(|k| (b.base, k)))
            .ok_or(DeviceError::Missing(name))
    }

    /// Read register `reg` of block `block` (names from `rnic_spec::regs`).
    pub fn read(&mut self, block: &'static str, reg: &str) -> Result<u32, DeviceError> {
        let (base, b) = self.base(block)?;
        let r = b.reg(reg).expect("register of the spec's map");
        Ok(self.bus.read32(base + r.offset)?)
    }

    pub fn write(&mut self, block: &'static str, reg: &str, value: u32) -> Result<(), DeviceError> {
        let (base, b) = self.base(block)?;
        let r = b.reg(reg).expect("register of the spec's map");
        Ok(self.bus.write32(base + r.offset, value)?)
    }

    /// Whether the card has the block called `name` (one this driver knows).
    pub fn has(&self, name: &'static str) -> bool {
        self.base(name).is_ok()
    }

    /// Push send WQE `wqe` through BAR0 with the send-queue doorbell that posts it (`index`:
    /// the new producer index, the WQE being the entry before it). The card then takes the
    /// WQE from its registers instead of reading it from the ring (the WQE must be in the ring
    /// too: a resend reads it there).
    pub fn push_send_wqe(&mut self, qpn: u16, index: u16, wqe: &[u8; rnic_spec::desc::SEND_WQE_LEN]) -> Result<(), DeviceError> {
        // One lookup for the 17 writes: the posting path. wqe_0 ... wqe_15 are consecutive
        // words (the spec's map pins them).
        let (base, b) = self.base("push")?;
        let first = base + b.reg("wqe_0").expect("register of the spec's map").offset;
        let doorbell = base + b.reg("sq").expect("register of the spec's map").offset;
        for (i, w) in wqe.chunks(4).enumerate() {
            self.bus.write32(first + 4 * i as u32, u32::from_le_bytes(w.try_into().expect("4 bytes")))?;
        }
        Ok(self.bus.write32(doorbell, rnic_spec::desc::doorbell(qpn, index))?)
    }

    pub fn info(&mut self) -> Result<Info, DeviceError> {
        Ok(Info {
            datapath_bits: self.read("id", "datapath_bits")?,
            clock_khz: self.read("id", "clock_khz")?,
            max_payload: self.read("id", "max_payload")?,
            qps: self.read("id", "qps")?,
            cqs: self.read("id", "cqs")?,
            mrs: self.read("id", "mrs")?,
            features: self.read("id", "features")?,
            blocks: self.blocks.clone(),
        })
    }

    /// Every status register of every block the card has: (block, register, value).
    pub fn stats(&mut self) -> Result<Vec<(&'static str, &'static str, u32)>, DeviceError> {
        let mut out = Vec::new();
        for fb in self.blocks.clone() {
            let Some(b) = fb.known else { continue };
            for r in b.regs.iter().filter(|r| r.access == Access::Status) {
                out.push((b.name, r.name, self.bus.read32(fb.base + r.offset)?));
            }
        }
        Ok(out)
    }

    /// The status registers that are not zero, as `block.register=value` separated by spaces
    /// (what a failing test or the demo prints).
    pub fn nonzero_stats(&mut self) -> Result<String, DeviceError> {
        let stats = self.stats()?;
        Ok(stats.iter().filter(|s| s.2 != 0).map(|(b, n, v)| format!("{b}.{n}={v}")).collect::<Vec<_>>().join(" "))
    }

    /// Stage a QP context in the `qp` block and commit it to QP `qpn` (its send queue restarts
    /// at index 0; the responder's expected PSN is the context's).
    pub fn write_qp(&mut self, qpn: u32, ctx: &rnic_spec::qp::QpContext) -> Result<(), DeviceError> {
        for (name, value) in ctx.registers() {
            self.write("qp", name, value)?;
        }
        self.write("qp", "commit", qpn)
    }

    /// Stage a completion ring in the `cq` block and commit it to CQ `cqn` (empty, phase 1).
    pub fn write_cq(&mut self, cqn: u32, base: u64, log_size: u8) -> Result<(), DeviceError> {
        for (name, value) in [("base_lo", base as u32), ("base_hi", (base >> 32) as u32), ("log_size", log_size as u32)] {
            self.write("cq", name, value)?;
        }
        self.write("cq", "commit", cqn)
    }

    /// Close CQ `cqn`: it takes no entry more (a completion still on its way for it is
    /// dropped, never written to a ring that may be freed).
    pub fn close_cq(&mut self, cqn: u32) -> Result<(), DeviceError> {
        for name in ["base_lo", "base_hi", "log_size"] {
            self.write("cq", name, 0)?;
        }
        self.write("cq", "commit", cqn | rnic_spec::regs::CQ_CLOSED)
    }

    /// Stage a memory region in the `mr` block and commit it into its key's slot.
    pub fn write_mr(&mut self, mr: &rnic_spec::mr::MemoryRegion) -> Result<(), DeviceError> {
        for (name, value) in [
            ("key", mr.key),
            ("base_lo", mr.base as u32),
            ("base_hi", (mr.base >> 32) as u32),
            ("length", mr.length),
            ("access", mr.access as u32),
            ("pd", mr.pd as u32),
        ] {
            self.write("mr", name, value)?;
        }
        self.write("mr", "commit", 1)
    }

    /// Empty the memory-region slot of `key`, and wait until the card has finished every
    /// write it admitted before (the responder's `mr_fence` reaches the epoch of this commit):
    /// after this returns the card writes no byte under `key`.
    pub fn clear_mr(&mut self, key: u32) -> Result<(), DeviceError> {
        self.write("mr", "key", key)?;
        self.write("mr", "commit", 0)?;
        self.wait_mr_fence()
    }

    /// Wait until the responder has finished every write admitted under the regions as they
    /// were before the last `mr` commit.
    fn wait_mr_fence(&mut self) -> Result<(), DeviceError> {
        // The read comes after the commit on the bus, so the epoch counts it.
        let want = self.read("responder", "mr_epoch")?;
        let mut value = 0;
        for _ in 0..MR_FENCE_POLLS {
            value = self.read("responder", "mr_fence")?;
            if value.wrapping_sub(want) as i32 >= 0 {
                return Ok(());
            }
        }
        Err(DeviceError::Stuck { what: "finish the writes, READs and atomics under a deregistered region", register: "responder.mr_fence", value, want })
    }

    /// Sweep the card's tables to what a reset leaves: every QP in RESET with nothing
    /// connected (its queues stopped), then every memory-region slot empty (fenced: nothing an
    /// earlier run registered is written after this returns), then every CQ closed. A driver opening the card does this first, so nothing of an earlier run
    /// applies. About four BAR writes per slot.
    pub fn clear_tables(&mut self, info: &Info) -> Result<(), DeviceError> {
        for (name, value) in rnic_spec::qp::QpContext::default().registers() {
            self.write("qp", name, value)?;
        }
        for qpn in 0..info.qps {
            self.write("qp", "commit", qpn)?;
        }
        for slot in 0..info.mrs {
            self.write("mr", "key", slot)?;
            self.write("mr", "commit", 0)?;
        }
        self.wait_mr_fence()?;
        for cqn in 0..info.cqs {
            self.close_cq(cqn)?;
        }
        Ok(())
    }

    /// Set the port's source addresses.
    pub fn write_port(&mut self, port: &rnic_spec::qp::PortAddress) -> Result<(), DeviceError> {
        for (name, value) in port.registers() {
            self.write("port", name, value)?;
        }
        Ok(())
    }

    /// Soft-MAC mode: the card appends and checks the Ethernet FCS.
    pub fn set_soft_fcs(&mut self, on: bool) -> Result<(), DeviceError> {
        let v = self.read("port", "control")?;
        let fcs = regs::PORT_CONTROL_FCS;
        self.write("port", "control", if on { v | fcs } else { v & !fcs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// BAR0 as a map of words: the spec's reset image, edited per test.
    struct FakeBar(HashMap<u32, u32>);

    impl FakeBar {
        fn new() -> FakeBar {
            FakeBar(regs::reset_image().into_iter().collect())
        }
    }

    impl Bus for FakeBar {
        fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
            crate::bus::check_offset(offset)?;
            Ok(self.0.get(&offset).copied().unwrap_or(0))
        }
        fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
            crate::bus::check_offset(offset)?;
            self.0.insert(offset, value);
            Ok(())
        }
        fn dma_alloc(&mut self, len: usize, align: usize) -> Result<u64, BusError> {
            Err(BusError::NoDmaMemory { len, align })
        }
        fn dma_free(&mut self, iova: u64) -> Result<(), BusError> {
            Err(BusError::NotAllocated(iova))
        }
        fn dma_write(&mut self, iova: u64, data: &[u8]) -> Result<(), BusError> {
            Err(BusError::NotDmaMemory { iova, len: data.len() })
        }
        fn dma_read(&mut self, iova: u64, len: usize) -> Result<Vec<u8>, BusError> {
            Err(BusError::NotDmaMemory { iova, len })
        }
        fn wait(&mut self, _cycles: u64) {}
    }

    #[test]
    fn opens_the_spec_map_and_reads_capabilities() {
        let mut d = Device::open(FakeBar::new()).unwrap();
        let info = d.info().unwrap();
        assert_eq!((info.datapath_bits, info.clock_khz, info.max_payload), (512, 250_000, 4096));
        assert_eq!(info.blocks.len(), regs::BLOCKS.len());
        assert!(info.feature_names().contains(&"tx-engine"));
        assert_eq!(d.stats().unwrap().len(), regs::count(Access::Status));
        d.set_soft_fcs(false).unwrap();
        assert_eq!(d.read("port", "control").unwrap() & regs::PORT_CONTROL_FCS, 0);
    }

    #[test]
    fn refuses_what_it_does_not_understand() {
        let mut bar = FakeBar::new();
        bar.0.insert(regs::addr("id", "magic").unwrap(), 0x1234);
        assert!(matches!(Device::open(bar), Err(DeviceError::NotRnic { magic: 0x1234, .. })));

        let mut bar = FakeBar::new();
        bar.0.insert(0x100 + BLOCK_VERSION, 9);
        let e = Device::open(bar).err().unwrap();
        assert_eq!(e, DeviceError::Unsupported { block: "port", version: 9, supported: 2 });
        assert!(e.to_string().contains("update rnic"));

        // A chain that points backwards would loop forever.
        let mut bar = FakeBar::new();
        bar.0.insert(0x200 + BLOCK_NEXT, 0x100);
        assert_eq!(Device::open(bar).err(), Some(DeviceError::BadChain { at: 0x200, next: 0x100 }));

        // Unknown block types are skipped, not refused.
        let mut bar = FakeBar::new();
        let last = regs::BLOCKS.last().unwrap().base;
        bar.0.insert(last + BLOCK_NEXT, 0xB00);
        bar.0.insert(0xB00 + BLOCK_TYPE, 0x7777_0000);
        bar.0.insert(0xB00 + BLOCK_VERSION, 3);
        let d = Device::open(bar).unwrap();
        assert_eq!(d.blocks.last().map(|b| (b.kind, b.known)), Some((0x7777_0000, None)));
    }
}
