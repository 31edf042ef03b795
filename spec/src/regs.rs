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
    /// A command: a write hands its value to the datapath for one cycle (a doorbell, a table
    /// commit) and is kept, so it reads back as the last value written (0 after reset).
    Command,
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
pub const TYPE_QP: u32 = 0x0005_0000;
pub const TYPE_MR: u32 = 0x0006_0000;
pub const TYPE_DOORBELL: u32 = 0x0007_0000;
pub const TYPE_RESPONDER: u32 = 0x0008_0000;
pub const TYPE_CQ: u32 = 0x0009_0000;
pub const TYPE_COMPLETER: u32 = 0x000A_0000;
pub const TYPE_PUSH: u32 = 0x000B_0000;

/// Completion queues of this build (`id.cqs`).
pub const CQ_SLOT_BITS: usize = 8;
pub const CQS: u32 = 1 << CQ_SLOT_BITS;
/// `cq.commit` with this bit beside the CQN closes the CQ: its ring takes no entry (every
/// completion for it is dropped), whatever was staged. Destroying a CQ, and the driver's
/// sweep when it opens the card, leave CQs closed.
pub const CQ_CLOSED: u32 = 1 << 31;

/// Queue pairs of this build (`id.qps`); a QPN is its slot in the QP table.
pub const QP_SLOT_BITS: usize = 8;
pub const QPS: u32 = 1 << QP_SLOT_BITS;
/// Memory regions of this build (`id.mrs`); a key's low bits name its slot.
pub const MR_SLOT_BITS: usize = 8;
pub const MRS: u32 = 1 << MR_SLOT_BITS;

/// QP states (`qp.state`), as `ibv_qp_state` numbers them. Only RTS sends.
pub mod qp_state {
    pub const RESET: u32 = 0;
    pub const INIT: u32 = 1;
    pub const RTR: u32 = 2;
    pub const RTS: u32 = 3;
    pub const ERROR: u32 = 6;
}

/// Bits of `qp.flags`.
pub mod qp_flags {
    /// The QP's path is IPv6 (else IPv4).
    pub const IPV6: u32 = 1 << 0;
    /// Frames carry an 802.1Q tag (`qp.vlan_tci`).
    pub const VLAN: u32 = 1 << 1;
}

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
    /// RC requester: send queues in host memory, doorbells, WQE fetch, local key check,
    /// segmentation by path MTU into RDMA WRITE and SEND packets.
    pub const REQUESTER: u32 = 1 << 5;
    /// RC responder: RDMA WRITE and SEND (receive queues in host memory, receive completions).
    pub const RESPONDER: u32 = 1 << 6;
    /// Names, for `rnic info`.
    pub const NAMES: [(u32, &str); 7] = [
        (RX_PARSE, "rx-parse"),
        (TX_ENGINE, "tx-engine"),
        (IPV6, "ipv6"),
        (VLAN, "vlan"),
        (SOFT_FCS, "soft-fcs"),
        (REQUESTER, "requester"),
        (RESPONDER, "responder"),
    ];
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
            reg("qps", 0x1C, Access::Const, QPS, "queue pairs"),
            reg("cqs", 0x20, Access::Const, CQS, "completion queues"),
            reg("mrs", 0x24, Access::Const, MRS, "memory regions"),
            reg(
                "features",
                0x28,
                Access::Const,
                feature::RX_PARSE
                    | feature::TX_ENGINE
                    | feature::IPV6
                    | feature::VLAN
                    | feature::SOFT_FCS
                    | feature::REQUESTER
                    | feature::RESPONDER,
                "feature bits (regs::feature)",
            ),
        ],
    },
    Block {
        name: "port",
        kind: TYPE_PORT,
        version: 2,
        base: 0x100,
        regs: &[
            reg("control", 0x0C, Access::Control, PORT_CONTROL_FCS, "bit 0: soft-MAC FCS insert and check"),
            reg("mac_lo", 0x10, Access::Control, 0, "the port's MAC address, its low 32 bits (the last four bytes)"),
            reg("mac_hi", 0x14, Access::Control, 0, "the port's MAC address, its high 16 bits (the first two bytes)"),
            reg("ipv4", 0x18, Access::Control, 0, "the port's IPv4 address (192.0.2.1 = 0xC0000201)"),
            reg("ipv6_0", 0x1C, Access::Control, 0, "the port's IPv6 address, its most significant word"),
            reg("ipv6_1", 0x20, Access::Control, 0, "the port's IPv6 address, word 1"),
            reg("ipv6_2", 0x24, Access::Control, 0, "the port's IPv6 address, word 2"),
            reg("ipv6_3", 0x28, Access::Control, 0, "the port's IPv6 address, its least significant word"),
        ],
    },
    Block { name: "rx_counters", kind: TYPE_RX_COUNTERS, version: 1, base: 0x200, regs: &RX_COUNTER_REGS },
    Block {
        name: "tx_counters",
        kind: TYPE_TX_COUNTERS,
        version: 2,
        base: 0x300,
        regs: &[
            reg("frames", 0x0C, Access::Status, 0, "frames handed to the MAC"),
            reg("wqes", 0x10, Access::Status, 0, "send WQEs the requester has started sending (resends not counted)"),
            reg("wqe_errors", 0x14, Access::Status, 0, "send WQEs refused (local key, bounds, opcode or length) or flushed behind a refused one"),
            reg("resent", 0x18, Access::Status, 0, "request packets sent again (go-back-N after a sequence NAK, a timeout or an RNR wait)"),
        ],
    },
    Block {
        name: "qp",
        kind: TYPE_QP,
        version: 5,
        base: 0x400,
        regs: &[
            reg("commit", 0x0C, Access::Command, 0, "write a QPN: the staged context below becomes that QP's, its send and receive queues start empty at index 0"),
            reg("state", 0x10, Access::Control, 0, "regs::qp_state; only RTS sends"),
            reg("dest_qpn", 0x14, Access::Control, 0, "the remote QP number"),
            reg("dest_mac_lo", 0x18, Access::Control, 0, "next hop MAC address, low 32 bits"),
            reg("dest_mac_hi", 0x1C, Access::Control, 0, "next hop MAC address, high 16 bits"),
            reg("flags", 0x20, Access::Control, 0, "regs::qp_flags: IPv6, VLAN"),
            reg("vlan_tci", 0x24, Access::Control, 0, "802.1Q tag: PCP, DEI, VID"),
            reg("traffic", 0x28, Access::Control, 64 << 8, "bits 5:0 DSCP, 7:6 ECN, 15:8 TTL / hop limit"),
            reg("flow_label", 0x2C, Access::Control, 0, "IPv6 flow label (20 bits)"),
            reg("udp_sport", 0x30, Access::Control, 0xC000, "UDP source port (ECMP entropy)"),
            reg("dest_ip_0", 0x34, Access::Control, 0, "remote address, most significant word (IPv6)"),
            reg("dest_ip_1", 0x38, Access::Control, 0, "remote address, word 1 (IPv6)"),
            reg("dest_ip_2", 0x3C, Access::Control, 0, "remote address, word 2 (IPv6)"),
            reg("dest_ip_3", 0x40, Access::Control, 0, "remote address, least significant word (the IPv4 address)"),
            reg("pkey", 0x44, Access::Control, 0xFFFF, "partition key"),
            reg("pmtu", 0x48, Access::Control, 10, "path MTU as log2 bytes: 8 (256) ... 12 (4096)"),
            reg("sq_psn", 0x4C, Access::Control, 0, "first PSN the send queue uses"),
            reg("sq_base_lo", 0x50, Access::Control, 0, "send queue ring IOVA, low 32 bits (64-byte aligned)"),
            reg("sq_base_hi", 0x54, Access::Control, 0, "send queue ring IOVA, high 32 bits"),
            reg("sq_log_size", 0x58, Access::Control, 0, "send queue entries as log2 (0 ... 8)"),
            reg("pd", 0x5C, Access::Control, 0, "protection domain of the QP's local and remote keys"),
            reg("rq_psn", 0x60, Access::Control, 0, "PSN the responder expects first"),
            reg("send_cq", 0x64, Access::Control, 0, "CQ of the send queue's completions"),
            reg("rq_base_lo", 0x68, Access::Control, 0, "receive queue ring IOVA, low 32 bits (32-byte aligned)"),
            reg("rq_base_hi", 0x6C, Access::Control, 0, "receive queue ring IOVA, high 32 bits"),
            reg("rq_log_size", 0x70, Access::Control, 0, "receive queue entries as log2 (0 ... 15)"),
            reg("recv_cq", 0x74, Access::Control, 0, "CQ of the receive queue's completions"),
            reg("retry", 0x78, Access::Control, 0, "bits 4:0 local ACK timeout (4.096 us x 2^t, 0 = none), 10:8 retry count, 14:12 RNR retry count (7 = no limit), 19:16 max_rd_atomic (READs outstanding, 1 ... 8; 0 = 1), 23:20 max_dest_rd_atomic (READs and atomics taken from the peer: 0 refuses them, 1 ... 8 take them)"),
            reg("errors_0", 0x7C, Access::Status, 0, "bit i: QP 0+i was put in error by the card (a NAK it sent or got, retries used up, a refused WQE); its commit clears it"),
            reg("errors_1", 0x80, Access::Status, 0, "bit i: QP 32+i was put in error by the card (a NAK it sent or got, retries used up, a refused WQE); its commit clears it"),
            reg("errors_2", 0x84, Access::Status, 0, "bit i: QP 64+i was put in error by the card (a NAK it sent or got, retries used up, a refused WQE); its commit clears it"),
            reg("errors_3", 0x88, Access::Status, 0, "bit i: QP 96+i was put in error by the card (a NAK it sent or got, retries used up, a refused WQE); its commit clears it"),
            reg("errors_4", 0x8C, Access::Status, 0, "bit i: QP 128+i was put in error by the card (a NAK it sent or got, retries used up, a refused WQE); its commit clears it"),
            reg("errors_5", 0x90, Access::Status, 0, "bit i: QP 160+i was put in error by the card (a NAK it sent or got, retries used up, a refused WQE); its commit clears it"),
            reg("errors_6", 0x94, Access::Status, 0, "bit i: QP 192+i was put in error by the card (a NAK it sent or got, retries used up, a refused WQE); its commit clears it"),
            reg("errors_7", 0x98, Access::Status, 0, "bit i: QP 224+i was put in error by the card (a NAK it sent or got, retries used up, a refused WQE); its commit clears it"),
        ],
    },
    Block {
        name: "mr",
        kind: TYPE_MR,
        version: 1,
        base: 0x500,
        regs: &[
            reg("commit", 0x0C, Access::Command, 0, "write 1: the staged region goes into the slot of its key; 0: that slot is emptied"),
            reg("key", 0x10, Access::Control, 0, "lkey = rkey; its low bits name the slot"),
            reg("base_lo", 0x14, Access::Control, 0, "first IOVA, low 32 bits"),
            reg("base_hi", 0x18, Access::Control, 0, "first IOVA, high 32 bits"),
            reg("length", 0x1C, Access::Control, 0, "bytes"),
            reg("access", 0x20, Access::Control, 0, "mr::access flags"),
            reg("pd", 0x24, Access::Control, 0, "protection domain"),
        ],
    },
    Block {
        name: "doorbell",
        kind: TYPE_DOORBELL,
        version: 3,
        base: 0x600,
        regs: &[
            reg("sq", 0x0C, Access::Command, 0, "desc::doorbell(qpn, new send queue producer index)"),
            reg("rq", 0x10, Access::Command, 0, "desc::doorbell(qpn, new receive queue producer index)"),
            reg("cq", 0x14, Access::Command, 0, "desc::doorbell(cqn, new completion queue consumer index): entries before it are free"),
        ],
    },
    Block {
        name: "responder",
        kind: TYPE_RESPONDER,
        version: 8,
        base: 0x700,
        regs: &[
            reg("placed", 0x0C, Access::Status, 0, "request packets whose payload was written to memory"),
            reg("acks", 0x10, Access::Status, 0, "ACK and NAK packets sent"),
            reg("naks_sequence", 0x14, Access::Status, 0, "NAK PSN sequence error: a PSN ahead of the expected one"),
            reg("naks_invalid", 0x18, Access::Status, 0, "NAK invalid request: opcode order or payload length"),
            reg("naks_access", 0x1C, Access::Status, 0, "NAK remote access error: rkey, PD, access or bounds"),
            reg("duplicates", 0x20, Access::Status, 0, "duplicate requests (a PSN already placed): not written again"),
            reg("bad_qp", 0x24, Access::Status, 0, "packets for a QP that does not exist, is not in RTR / RTS or is in error: dropped"),
            reg("set_aside", 0x28, Access::Status, 0, "packets of opcodes the responder does not serve (UD, invalidate, CNP): dropped"),
            reg("naks_rnr", 0x2C, Access::Status, 0, "RNR NAK: a SEND or WRITE with immediate found no posted receive WQE"),
            reg("naks_operational", 0x30, Access::Status, 0, "NAK remote operational error: the receive WQE's lkey does not allow the write (QP to error)"),
            reg("receives", 0x34, Access::Status, 0, "receive WQEs consumed (each gets a completion)"),
            reg("rq_wait_cycles", 0x38, Access::Status, 0, "cycles the responder waited for a receive WQE still being fetched"),
            reg("bad_source", 0x3C, Access::Status, 0, "packets whose source IP address or P_Key is not the QP's peer's: dropped"),
            reg("mr_epoch", 0x40, Access::Status, 0, "memory-region commits so far (each makes messages in progress check their key again)"),
            reg("mr_fence", 0x44, Access::Status, 0, "the mr_epoch every write admitted under an older one has finished by (dereg_mr waits for it)"),
            reg("read_responses", 0x48, Access::Status, 0, "RDMA READ RESPONSE packets sent"),
            reg("read_errors", 0x4C, Access::Status, 0, "host reads for READ responses or atomics that failed: each answered by a NAK remote operational error at the failed packet's PSN, none of its bytes sent"),
            reg("read_placed", 0x50, Access::Status, 0, "READ RESPONSE packets for this card's READs placed into their local buffers"),
            reg("read_dropped", 0x54, Access::Status, 0, "READ responses not placed: none outstanding, a duplicate, out of order, a wrong opcode or length, or refused by the local key"),
            reg("implied_naks", 0x58, Access::Status, 0, "implied NAKs: a READ response or ACK past responses still missing (the READ is sent again)"),
            reg("atomics", 0x5C, Access::Status, 0, "COMPARE & SWAP and FETCH & ADD requests executed (read-modify-write of host memory)"),
            reg("atomic_replays", 0x60, Access::Status, 0, "duplicate atomic requests answered from their saved result (not executed again)"),
            reg("atomic_unanswered", 0x64, Access::Status, 0, "duplicate atomic requests whose result is no longer kept: not answered"),
            reg("reads_replaced", 0x68, Access::Status, 0, "READ answers stopped before their end (or before they began) because a duplicate of the same READ arrived: the duplicate's answer replaces them"),
            reg("out_of_sequence", 0x6C, Access::Status, 0, "request packets ahead of the expected PSN (packets before them were lost): dropped, the first of a gap NAKed (naks_sequence)"),
        ],
    },
    Block {
        name: "cq",
        kind: TYPE_CQ,
        version: 1,
        base: 0x800,
        regs: &[
            reg("commit", 0x0C, Access::Command, 0, "write a CQN: the staged ring becomes that CQ's, empty, phase 1 (with CQ_CLOSED: the CQ takes no entry)"),
            reg("base_lo", 0x10, Access::Control, 0, "ring IOVA, low 32 bits (32-byte aligned)"),
            reg("base_hi", 0x14, Access::Control, 0, "ring IOVA, high 32 bits"),
            reg("log_size", 0x18, Access::Control, 0, "entries as log2 (0 ... 15)"),
        ],
    },
    Block {
        name: "completer",
        kind: TYPE_COMPLETER,
        version: 3,
        base: 0x900,
        regs: &[
            reg("acks", 0x0C, Access::Status, 0, "ACKs received for this card's requests"),
            reg("naks", 0x10, Access::Status, 0, "NAKs and RNR NAKs received"),
            reg("cqes", 0x14, Access::Status, 0, "completion entries written"),
            reg("unexpected", 0x18, Access::Status, 0, "acknowledges for no outstanding WQE, or for an unusable QP: dropped"),
            reg("cq_overflows", 0x1C, Access::Status, 0, "CQEs dropped: their CQ was full (a consumer doorbell frees entries) or closed"),
            reg("naks_sequence", 0x20, Access::Status, 0, "PSN sequence NAKs received (each rewinds the send queue)"),
            reg("naks_rnr", 0x24, Access::Status, 0, "RNR NAKs received (the send queue waits the NAK's timer, then rewinds)"),
            reg("timeouts", 0x28, Access::Status, 0, "local ACK timeouts (each rewinds the send queue)"),
            reg("rewinds", 0x2C, Access::Status, 0, "go-back-N restarts handed to the requester"),
            reg("retries_exceeded", 0x30, Access::Status, 0, "send queues put in error: retry or RNR retry count exhausted"),
        ],
    },
    Block {
        name: "push",
        kind: TYPE_PUSH,
        version: 1,
        base: 0xA00,
        regs: &[
            reg("wqe_0", 0x0C, Access::Control, 0, "the pushed send WQE's bytes 0 ... 3 (desc::send_wqe layout, little endian)"),
            reg("wqe_1", 0x10, Access::Control, 0, "the pushed send WQE's bytes 4 ... 7 (desc::send_wqe layout, little endian)"),
            reg("wqe_2", 0x14, Access::Control, 0, "the pushed send WQE's bytes 8 ... 11 (desc::send_wqe layout, little endian)"),
            reg("wqe_3", 0x18, Access::Control, 0, "the pushed send WQE's bytes 12 ... 15 (desc::send_wqe layout, little endian)"),
            reg("wqe_4", 0x1C, Access::Control, 0, "the pushed send WQE's bytes 16 ... 19 (desc::send_wqe layout, little endian)"),
            reg("wqe_5", 0x20, Access::Control, 0, "the pushed send WQE's bytes 20 ... 23 (desc::send_wqe layout, little endian)"),
            reg("wqe_6", 0x24, Access::Control, 0, "the pushed send WQE's bytes 24 ... 27 (desc::send_wqe layout, little endian)"),
            reg("wqe_7", 0x28, Access::Control, 0, "the pushed send WQE's bytes 28 ... 31 (desc::send_wqe layout, little endian)"),
            reg("wqe_8", 0x2C, Access::Control, 0, "the pushed send WQE's bytes 32 ... 35 (desc::send_wqe layout, little endian)"),
            reg("wqe_9", 0x30, Access::Control, 0, "the pushed send WQE's bytes 36 ... 39 (desc::send_wqe layout, little endian)"),
            reg("wqe_10", 0x34, Access::Control, 0, "the pushed send WQE's bytes 40 ... 43 (desc::send_wqe layout, little endian)"),
            reg("wqe_11", 0x38, Access::Control, 0, "the pushed send WQE's bytes 44 ... 47 (desc::send_wqe layout, little endian)"),
            reg("wqe_12", 0x3C, Access::Control, 0, "the pushed send WQE's bytes 48 ... 51 (desc::send_wqe layout, little endian)"),
            reg("wqe_13", 0x40, Access::Control, 0, "the pushed send WQE's bytes 52 ... 55 (desc::send_wqe layout, little endian)"),
            reg("wqe_14", 0x44, Access::Control, 0, "the pushed send WQE's bytes 56 ... 59 (desc::send_wqe layout, little endian)"),
            reg("wqe_15", 0x48, Access::Control, 0, "the pushed send WQE's bytes 60 ... 63 (desc::send_wqe layout, little endian)"),
            reg("sq", 0x4C, Access::Command, 0, "desc::doorbell(qpn, new send queue producer index), as doorbell.sq, and wqe_0 ... wqe_15 are the entry before that index (also written to the ring): the card takes it from here instead of reading host memory"),
        ],
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

    #[test]
    fn pushed_wqe_words_are_consecutive() {
        // The driver writes a pushed WQE at wqe_0 + 4 * i.
        let b = block("push").unwrap();
        let first = b.reg("wqe_0").unwrap().offset;
        for i in 0..crate::desc::SEND_WQE_LEN / 4 {
            assert_eq!(b.reg(&format!("wqe_{i}")).unwrap().offset, first + 4 * i as u32);
        }
        assert_eq!(b.reg("sq").unwrap().offset, first + crate::desc::SEND_WQE_LEN as u32);
    }
}
