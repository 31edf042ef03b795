//! A verbs-shaped API over a [`Device`]: protection domains, memory regions, queue pairs with
//! the RESET → INIT → RTR → RTS state machine, and `post_send`. Everything the card needs is
//! programmed through BAR0 (`rnic_spec::regs`) and host memory (`rnic_spec::desc`); bad
//! arguments are refused with a typed error before anything reaches the card.
//!
//! Completion queues are rings of CQEs the card writes with a phase bit; `poll_cq` turns them
//! into work completions (the card names a completion by its send- or receive-queue index,
//! the driver fills in the wr_id, and for sends the opcode and length, from what it posted
//! there), frees the queue slots and returns the CQ entries with the consumer-index doorbell. `post_recv` posts receive buffers (one scatter element
//! each) that SENDs and WRITEs with immediate consume. A CQ the card finds full drops the CQE
//! and counts it (`completer.cq_overflows`): size CQs for the completions outstanding.

use crate::bus::{Bus, BusError};
use crate::device::{Device, DeviceError};
use rnic_spec::desc::{cqe_flags, doorbell, send_flags, CqOp, CqStatus, Cqe, RecvWqe, SendOp, SendWqe, CQE_LEN, INLINE_MAX, RECV_WQE_LEN, SEND_WQE_LEN};
use std::collections::{HashMap, HashSet};
use rnic_spec::mr::{self, MemoryRegion};
use rnic_spec::qp::{check_shape, PortAddress, ShapeError, QpContext, RemoteIp, MAX_MESSAGE, PMTU_LOG2_MAX, PMTU_LOG2_MIN, RD_SLOTS, RQ_LOG_SIZE_MAX, SQ_LOG_SIZE_MAX};

/// Cycles `destroy_qp` and `destroy_cq` wait between stopping a queue on the card and
/// freeing its ring: 10 µs, over ten host-memory round trips, for a WQE read or CQE write
/// already issued to finish. (A time-based grace period; a per-queue DMA fence would make it
/// exact.)
const QUIESCE_CYCLES: u64 = 2_500;

/// Local ACK timeout of a QP whose `QpAttr::timeout` is not given: 4.096 µs × 2^14 = 67 ms,
/// perftest's default.
pub const DEFAULT_TIMEOUT: u8 = 14;
use rnic_spec::regs::{self, qp_state};
use rnic_spec::wire::eth::Vlan;
use rnic_spec::wire::tx::AtomicArgs;
use rnic_spec::wire::psn::PSN_MASK;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerbsError {
    Device(DeviceError),
    Bus(BusError),
    /// Every QP slot of the card is in use.
    NoQp,
    /// Every memory-region slot of the card is in use.
    NoMrSlot,
    /// Every completion-queue slot of the card is in use.
    NoCq,
    /// Every protection-domain number is in use.
    NoPd,
    /// The QP handle is not one of this context's live QPs (destroyed, or a stale copy).
    UnknownQp(u32),
    /// The card wrote a completion the driver cannot match to a work request.
    StrayCompletion { qpn: u32, wqe_index: u16 },
    /// The region is not one of this context's, or was deregistered.
    UnknownMr(u32),
    /// A QP state change the verbs state machine does not allow.
    BadTransition { from: QpState, to: QpState },
    /// An attribute is missing or out of range: (which, what is wrong).
    BadAttribute(&'static str, String),
    /// The QP is not in a state that sends.
    NotReadyToSend(QpState),
    /// The send queue has no free entry.
    SendQueueFull { qpn: u32, size: u32 },
    /// The receive queue has no free entry.
    RecvQueueFull { qpn: u32, size: u32 },
    /// Receives can be posted from Init on (and not in Error or Reset).
    NotReadyToReceive(QpState),
    /// A work request the card does not perform (yet).
    Unsupported(&'static str),
    /// A work request's length exceeds an RC message.
    TooLong(u64),
    /// An atomic whose local buffer is not 8 bytes.
    AtomicLength(u32),
    /// Inline data longer than a WQE holds.
    InlineTooLong(u32),
    /// Inline data asked for on an operation without payload (READ, atomics).
    InlineOp(SendOp),
    /// The bytes to copy inline cannot be read: (address, length, why).
    InlineBuffer(u64, u32, String),
    /// The protection domain is not one of this context's, or was deallocated.
    UnknownPd(u16),
    /// The completion queue is not one of this context's, or was destroyed.
    UnknownCq(u32),
    /// A resource cannot go while something uses it: (what, what uses it).
    InUse(String, String),
}

impl std::fmt::Display for VerbsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VerbsError::Device(e) => write!(f, "{e}"),
            VerbsError::Bus(e) => write!(f, "{e}"),
            VerbsError::NoQp => write!(f, "all {} queue pairs are in use: destroy one first", regs::QPS - FIRST_QPN),
            VerbsError::NoMrSlot => write!(f, "all {} memory-region slots are in use: deregister one first", regs::MRS - 1),
            VerbsError::NoCq => write!(f, "all {} completion queues are in use: destroy one first", regs::CQS),
            VerbsError::NoPd => write!(f, "all 65535 protection domains are in use: deallocate one first"),
            VerbsError::UnknownQp(qpn) => write!(f, "QP {qpn} is not a live QP of this context (destroyed, or a stale handle): use the one create_qp returned"),
            VerbsError::StrayCompletion { qpn, wqe_index } => {
                write!(f, "completion for QP {qpn} index {wqe_index} matches no posted work request (card or driver bug)")
            }
            VerbsError::UnknownMr(k) => write!(f, "memory region with key {k:#x} is not registered"),
            VerbsError::BadTransition { from, to } => {
                let allowed: Vec<String> = from.next_states().iter().map(|s| format!("{s:?}")).collect();
                write!(f, "a QP cannot go from {from:?} to {to:?}: from {from:?} it can go to {} (the order is Reset, Init, Rtr, Rts)", allowed.join(", "))
            }
            VerbsError::BadAttribute(which, what) => write!(f, "QP attribute {which}: {what}"),
            VerbsError::NotReadyToSend(s) => write!(f, "the QP is in {s:?}: move it to Rts before posting sends"),
            VerbsError::SendQueueFull { qpn, size } => {
                write!(f, "the send queue of QP {qpn} is full ({size} entries): poll its completions or create it larger")
            }
            VerbsError::RecvQueueFull { qpn, size } => {
                write!(f, "the receive queue of QP {qpn} is full ({size} entries): poll its completions or create it larger")
            }
            VerbsError::NotReadyToReceive(s) => write!(f, "the QP is in {s:?}: move it to Init (or later) before posting receives"),
            VerbsError::Unsupported(what) => write!(f, "{what} is not supported by this card yet"),
            VerbsError::TooLong(n) => write!(f, "{n} bytes is longer than an RC message may be ({MAX_MESSAGE})"),
            VerbsError::AtomicLength(n) => write!(f, "an atomic's local buffer is {n} bytes: it must be 8, the size of the original value it receives"),
            VerbsError::InlineTooLong(n) => {
                write!(f, "{n} bytes do not fit inline (at most {INLINE_MAX}): post it without send_flags::INLINE")
            }
            VerbsError::InlineOp(op) => write!(f, "{op:?} carries no payload to send inline: post it without send_flags::INLINE"),
            VerbsError::InlineBuffer(addr, len, why) => {
                write!(f, "the {len} inline bytes at {addr:#x} cannot be read ({why}): local_addr must point at the bytes to copy")
            }
            VerbsError::UnknownPd(pd) => write!(f, "protection domain {pd} is not allocated: use one alloc_pd returned"),
            VerbsError::UnknownCq(cqn) => write!(f, "completion queue {cqn} does not exist: use one create_cq returned"),
            VerbsError::InUse(what, by) => write!(f, "{what} is in use by {by}: release that first"),
        }
    }
}

impl std::error::Error for VerbsError {}

impl From<DeviceError> for VerbsError {
    fn from(e: DeviceError) -> Self {
        VerbsError::Device(e)
    }
}

impl From<BusError> for VerbsError {
    fn from(e: BusError) -> Self {
        VerbsError::Bus(e)
    }
}

/// A single send WQE is pushed through BAR0 (`Device::push_send_wqe`) while at most this many
/// earlier ones of its QP wait for their completion.
pub const PUSH_OUTSTANDING_MAX: usize = 1;

/// QP numbers 0 and 1 are the InfiniBand special QPs (SMI, GSI): never handed out.
pub const FIRST_QPN: u32 = 2;

/// QP states, as `ibv_qp_state` has them (the ones this card uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QpState {
    Reset,
    Init,
    Rtr,
    Rts,
    Error,
}

impl QpState {
    /// The states `modify_qp` may move a QP in this state to (IBTA Vol 1 §10.3.1, as the
    /// kernel's `ib_modify_qp_is_ok` table has them for RC; SQD and SQE are not modelled: an
    /// RC QP goes to Error on any completion error).
    pub fn next_states(self) -> &'static [QpState] {
        use QpState::*;
        match self {
            Reset => &[Reset, Init, Error],
            Init => &[Reset, Init, Rtr, Error],
            Rtr => &[Reset, Rts, Error],
            Rts => &[Reset, Rts, Error],
            Error => &[Reset, Error],
        }
    }

    fn code(self) -> u32 {
        match self {
            QpState::Reset => qp_state::RESET,
            QpState::Init => qp_state::INIT,
            QpState::Rtr => qp_state::RTR,
            QpState::Rts => qp_state::RTS,
            QpState::Error => qp_state::ERROR,
        }
    }
}

/// A protection domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pd(pub u16);

/// A registered memory region: lkey = rkey.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mr {
    pub region: MemoryRegion,
}

impl Mr {
    pub fn key(&self) -> u32 {
        self.region.key
    }
}

/// A buffer of DMA memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmaBuf {
    pub iova: u64,
    pub len: usize,
}

/// Where a QP's packets go: the remote port's addresses and the path's traffic settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Path {
    pub dest_mac: [u8; 6],
    pub remote_ip: RemoteIp,
    pub vlan: Option<Vlan>,
    pub dscp: u8,
    /// ECN codepoint of sent packets: 0 not ECN-capable, 2 ECT(0).
    pub ecn: u8,
    pub hop_limit: u8,
    pub flow_label: u32,
}

/// What `modify_qp` changes; which fields a transition needs is the verbs rule (RTR: path,
/// PMTU, remote QPN, receive PSN; RTS: send PSN).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QpAttr {
    pub path: Option<Path>,
    /// Path MTU in bytes: 256, 512, 1024, 2048 or 4096.
    pub pmtu: Option<u32>,
    pub dest_qpn: Option<u32>,
    pub rq_psn: Option<u32>,
    pub sq_psn: Option<u32>,
    /// Local ACK timeout, 4.096 µs × 2^timeout (0: none; 0 ... 31). Rts; default 14.
    pub timeout: Option<u8>,
    /// Transport retries before RetryExceeded (0 ... 7). Rts; default 7.
    pub retry_cnt: Option<u8>,
    /// RNR retries before RnrRetryExceeded (0 ... 6, 7 = no limit). Rts; default 7.
    pub rnr_retry: Option<u8>,
    /// RDMA READs outstanding at once (1 ... 8; at most the peer's `max_dest_rd_atomic`).
    /// Rts; default 8.
    pub max_rd_atomic: Option<u8>,
    /// READ and atomic requests the peer may have outstanding at this QP (0 ... 8; 0 refuses
    /// every new READ and atomic with NAK invalid request). Rtr (refused elsewhere); default 8
    /// at every Rtr it is not given to. The card keeps 8 per QP whatever the value.
    pub max_dest_rd_atomic: Option<u8>,
}

/// A send work request (one scatter/gather element).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendWr {
    pub wr_id: u64,
    pub op: SendOp,
    /// `desc::send_flags`. With `INLINE` (SEND and WRITE of at most `desc::INLINE_MAX`
    /// bytes) `post_send` copies the bytes at `local_addr` into the WQE: the card reads no
    /// buffer, `lkey` is not used, and the buffer may change as soon as the post returns.
    pub flags: u8,
    pub local_addr: u64,
    pub length: u32,
    pub lkey: u32,
    /// RDMA operations only.
    pub remote_addr: u64,
    pub rkey: u32,
    /// Operations with immediate data only.
    pub imm: u32,
    /// Atomics only (`remote_addr` names the 8-byte remote word, `length` is 8): the swap
    /// value or the addend (`value`), and COMPARE & SWAP's compare value.
    pub atomic: AtomicArgs,
}

/// A receive work request: one buffer, in a region with LOCAL_WRITE access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecvWr {
    pub wr_id: u64,
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

/// Queue sizes of a new QP (powers of two, 1 … 32768).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpCaps {
    pub sq_entries: u32,
    pub rq_entries: u32,
}

impl SendWr {
    /// The send WQE that carries this request.
    pub fn wqe(&self) -> SendWqe {
        SendWqe {
            wr_id: self.wr_id,
            op: self.op as u8,
            flags: self.flags,
            imm: self.imm,
            local_addr: self.local_addr,
            length: self.length,
            lkey: self.lkey,
            remote_addr: self.remote_addr,
            rkey: self.rkey,
            swap_add: self.atomic.value,
            compare: self.atomic.compare,
        }
    }
}

/// A completion queue: a ring of CQEs in host memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cq {
    pub cqn: u32,
    /// Which creation this handle is of (a CQ number is used again once destroyed).
    id: u64,
    ring: DmaBuf,
    log_size: u8,
    /// Entries consumed so far.
    ci: u32,
    /// Consumed entries the card has not been told of (a doorbell write failed): told at the
    /// next poll.
    ci_untold: bool,
}

impl Cq {
    pub fn size(&self) -> u32 {
        1 << self.log_size
    }

    /// The ring in host memory (the card writes its CQEs there).
    pub fn ring(&self) -> DmaBuf {
        self.ring
    }
}

/// A work completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wc {
    pub wr_id: u64,
    pub status: CqStatus,
    pub op: CqOp,
    pub byte_len: u32,
    pub qpn: u32,
    /// Immediate data (SEND or WRITE with immediate, on the receiving side).
    pub imm: Option<u32>,
}

/// What the driver remembers of posted work requests, by queue index: send (wr_id, op,
/// length) and receive (wr_id).
#[derive(Debug, Clone, Default)]
struct Book {
    /// The `Qp::id` of the QP these books are of.
    id: u64,
    pd: u16,
    send_cq: u32,
    recv_cq: u32,
    /// The rings in host memory (freed with the QP).
    sq: Option<DmaBuf>,
    rq: Option<DmaBuf>,
    sq_size: u32,
    /// By send-queue index: wr_id, operation, length, lkey.
    posted: HashMap<u16, (u64, SendOp, u32, u32)>,
    rq_size: u32,
    received: HashMap<u16, u64>,
    /// The QP was moved to Error: what is still on the books completes as Flushed.
    flushing: bool,
    /// Every send asks for a completion (`sq_sig_all`), whatever its flags say.
    sig_all: bool,
}

impl Book {
    /// The indexes of a queue's outstanding entries, oldest first. They are contiguous (each
    /// queue completes in order) and fewer than 2^16, so the oldest is the one whose
    /// predecessor is not outstanding.
    fn in_order<T>(entries: &HashMap<u16, T>) -> Vec<u16> {
        let Some(&oldest) = entries.keys().find(|k| !entries.contains_key(&k.wrapping_sub(1))) else {
            return Vec::new();
        };
        (0..entries.len() as u16).map(|k| oldest.wrapping_add(k)).collect()
    }
}

/// A queue pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Qp {
    pub qpn: u32,
    pub pd: Pd,
    pub state: QpState,
    /// Which creation this handle is of (a QP number is used again once destroyed).
    id: u64,
    sq: DmaBuf,
    sq_log_size: u8,
    /// Producer index (modulo 2^16, as the doorbell carries it) and WQEs posted in all.
    sq_pi: u16,
    posted: u64,
    rq: DmaBuf,
    rq_pi: u16,
    ctx: QpContext,
}

impl Qp {
    pub fn context(&self) -> &QpContext {
        &self.ctx
    }

    pub fn sq_size(&self) -> u32 {
        1 << self.sq_log_size
    }

    pub fn rq_size(&self) -> u32 {
        1 << self.ctx.rq_log_size
    }
}

/// The card and what this driver has set up on it.
pub struct Context<B: Bus> {
    pub dev: Device<B>,
    port: PortAddress,
    next_pd: u16,
    pds: HashSet<u16>,
    qps: Vec<bool>,
    /// The id and ring of each CQ in use.
    cqs: Vec<Option<(u64, DmaBuf)>>,
    /// Live DMA allocations: IOVA → length.
    bufs: HashMap<u64, usize>,
    /// Ids for QP and CQ handles.
    next_id: u64,
    books: HashMap<u32, Book>,
    mrs: Vec<Option<MemoryRegion>>,
    /// Bumped on every registration so a reused slot gets a new key (stale keys fail).
    key_generation: u32,
    /// Push a single posted send WQE through BAR0 (`set_wqe_push`).
    wqe_push: bool,
}

impl<B: Bus> Context<B> {
    /// Take over an opened card: its tables are swept clear (`Device::clear_tables`: nothing
    /// an earlier run set up applies) and `port` becomes its source addresses.
    pub fn new(mut dev: Device<B>, port: PortAddress) -> Result<Context<B>, VerbsError> {
        let info = dev.info()?;
        if info.features & regs::feature::REQUESTER == 0 || info.qps < FIRST_QPN + 1 || info.mrs < 2 {
            return Err(VerbsError::Unsupported("a card without the requester"));
        }
        dev.clear_tables(&info)?;
        dev.write_port(&port)?;
        // Keys carry a variant part no peer can predict from an earlier run: a random start.
        let key_generation = {
            use std::hash::{BuildHasher, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(std::process::id() as u64);
            h.finish() as u32
        };
        let mut qps = vec![false; info.qps as usize];
        qps[..FIRST_QPN as usize].fill(true);
        Ok(Context {
            dev,
            port,
            next_pd: 1,
            pds: HashSet::new(),
            qps,
            cqs: vec![None; info.cqs as usize],
            bufs: HashMap::new(),
            next_id: 1,
            books: HashMap::new(),
            mrs: vec![None; info.mrs as usize],
            key_generation,
            wqe_push: true,
        })
    }

    pub fn port(&self) -> &PortAddress {
        &self.port
    }

    /// The regions as the card's table holds them (for reference models).
    pub fn regions(&self) -> &[Option<MemoryRegion>] {
        &self.mrs
    }

    pub fn alloc_pd(&mut self) -> Result<Pd, VerbsError> {
        if self.pds.len() >= u16::MAX as usize {
            return Err(VerbsError::NoPd);
        }
        // PD 0 is never handed out; numbers of live PDs are skipped when the counter wraps.
        while self.next_pd == 0 || self.pds.contains(&self.next_pd) {
            self.next_pd = self.next_pd.wrapping_add(1);
        }
        let pd = Pd(self.next_pd);
        self.pds.insert(pd.0);
        self.next_pd = self.next_pd.wrapping_add(1);
        Ok(pd)
    }

    /// Give a protection domain back; refused while a memory region or QP is in it.
    pub fn dealloc_pd(&mut self, pd: Pd) -> Result<(), VerbsError> {
        self.check_pd(pd)?;
        let in_use = |by: String| Err(VerbsError::InUse(format!("protection domain {}", pd.0), by));
        if let Some(r) = self.mrs.iter().flatten().find(|r| r.pd == pd.0) {
            return in_use(format!("memory region {:#x}", r.key));
        }
        if let Some((qpn, _)) = self.books.iter().find(|(_, b)| b.pd == pd.0) {
            return in_use(format!("QP {qpn}"));
        }
        self.pds.remove(&pd.0);
        Ok(())
    }

    fn check_pd(&self, pd: Pd) -> Result<(), VerbsError> {
        if self.pds.contains(&pd.0) {
            Ok(())
        } else {
            Err(VerbsError::UnknownPd(pd.0))
        }
    }

    /// DMA memory for buffers, `align` a power of two up to 4096.
    pub fn alloc_buf(&mut self, len: usize, align: usize) -> Result<DmaBuf, VerbsError> {
        let iova = self.dev.bus().dma_alloc(len, align)?;
        self.bufs.insert(iova, len);
        Ok(DmaBuf { iova, len })
    }

    /// Give an allocation back to the bus, unchecked (its users are gone).
    fn release_buf(&mut self, iova: u64) -> Result<(), VerbsError> {
        self.bufs.remove(&iova);
        Ok(self.dev.bus().dma_free(iova)?)
    }

    /// Give DMA memory back (`buf` as `alloc_buf` returned it); refused while a memory region
    /// covers any of it (deregister it first) or while it holds a queue's ring.
    pub fn free_buf(&mut self, buf: DmaBuf) -> Result<(), VerbsError> {
        // The allocation's own length, whatever the handle says.
        let len = *self.bufs.get(&buf.iova).ok_or(VerbsError::Bus(BusError::NotAllocated(buf.iova)))?;
        let (start, end) = (buf.iova, buf.iova.saturating_add(len as u64));
        let overlaps = |iova: u64, len: u64| iova < end && start < iova.saturating_add(len);
        let in_use = |by: String| Err(VerbsError::InUse(format!("the buffer at {:#x}", buf.iova), by));
        if let Some(r) = self.mrs.iter().flatten().find(|r| overlaps(r.base, r.length as u64)) {
            return in_use(format!("memory region {:#x}", r.key));
        }
        let rings = self.cqs.iter().flatten().map(|c| &c.1).chain(self.books.values().flat_map(|b| b.sq.iter().chain(b.rq.iter())));
        if rings.into_iter().any(|r| overlaps(r.iova, r.len as u64)) {
            return in_use("a queue's ring: destroy the QP or CQ".into());
        }
        self.release_buf(buf.iova)
    }

    pub fn write_buf(&mut self, iova: u64, data: &[u8]) -> Result<(), VerbsError> {
        Ok(self.dev.bus().dma_write(iova, data)?)
    }

    pub fn read_buf(&mut self, iova: u64, len: usize) -> Result<Vec<u8>, VerbsError> {
        Ok(self.dev.bus().dma_read(iova, len)?)
    }

    /// Register `[iova, iova + len)` for `access` (`mr::access` flags).
    pub fn reg_mr(&mut self, pd: Pd, iova: u64, len: u32, access: u8) -> Result<Mr, VerbsError> {
        self.check_pd(pd)?;
        if iova.checked_add(len as u64).is_none() {
            return Err(VerbsError::BadAttribute("mr", format!("{len} bytes at {iova:#x} wrap around")));
        }
        // Slot 0 stays empty, so key 0 never matches.
        let slot = (1..self.mrs.len()).find(|&s| self.mrs[s].is_none()).ok_or(VerbsError::NoMrSlot)?;
        self.key_generation = self.key_generation.wrapping_add(1);
        let key = (self.key_generation << regs::MR_SLOT_BITS) | slot as u32;
        let region = MemoryRegion { key, base: iova, length: len, access, pd: pd.0 };
        debug_assert_eq!(mr::slot(key, self.mrs.len()), slot);
        self.dev.write_mr(&region)?;
        self.mrs[slot] = Some(region);
        Ok(Mr { region })
    }

    pub fn dereg_mr(&mut self, mr: Mr) -> Result<(), VerbsError> {
        let slot = mr::slot(mr.key(), self.mrs.len());
        if self.mrs[slot] != Some(mr.region) {
            return Err(VerbsError::UnknownMr(mr.key()));
        }
        // The requester reads a send's payload under its lkey while the send is outstanding.
        if let Some((qpn, _)) = self.books.iter().find(|(_, b)| b.posted.values().any(|p| p.3 == mr.key())) {
            return Err(VerbsError::InUse(format!("memory region {:#x}", mr.key()), format!("a posted send of QP {qpn}: poll its completion first")));
        }
        self.dev.clear_mr(mr.key())?;
        self.mrs[slot] = None;
        Ok(())
    }

    /// A completion queue of `entries` (a power of two, 1 … 32768), empty.
    pub fn create_cq(&mut self, entries: u32) -> Result<Cq, VerbsError> {
        if !entries.is_power_of_two() || entries > 1 << 15 {
            return Err(VerbsError::BadAttribute("cq entries", format!("{entries} is not a power of two up to 32768")));
        }
        let cqn = self.cqs.iter().position(|used| used.is_none()).ok_or(VerbsError::NoCq)? as u32;
        let ring = self.alloc_buf(entries as usize * CQE_LEN, 4096)?;
        let log_size = entries.trailing_zeros() as u8;
        if let Err(e) = self.dev.write_cq(cqn, ring.iova, log_size) {
            let _ = self.release_buf(ring.iova);
            return Err(e.into());
        }
        let id = self.next_id;
        self.next_id += 1;
        self.cqs[cqn as usize] = Some((id, ring));
        Ok(Cq { cqn, id, ring, log_size, ci: 0, ci_untold: false })
    }

    /// Destroy a completion queue (refused while a QP reports to it): the card forgets its
    /// ring, whose memory is freed.
    pub fn destroy_cq(&mut self, cq: Cq) -> Result<(), VerbsError> {
        self.check_cq(&cq)?;
        if let Some((qpn, _)) = self.books.iter().find(|(_, b)| b.send_cq == cq.cqn || b.recv_cq == cq.cqn) {
            return Err(VerbsError::InUse(format!("completion queue {}", cq.cqn), format!("QP {qpn}")));
        }
        self.dev.close_cq(cq.cqn)?;
        self.cqs[cq.cqn as usize] = None;
        // A CQE whose write the card issued before the close still lands: let it, then free
        // the ring.
        self.dev.bus().wait(QUIESCE_CYCLES);
        self.release_buf(cq.ring.iova)
    }

    fn check_cq(&self, cq: &Cq) -> Result<(), VerbsError> {
        match self.cqs.get(cq.cqn as usize) {
            Some(Some((id, _))) if *id == cq.id => Ok(()),
            _ => Err(VerbsError::UnknownCq(cq.cqn)),
        }
    }

    fn check_qp(&self, qp: &Qp) -> Result<(), VerbsError> {
        match self.books.get(&qp.qpn) {
            Some(b) if b.id == qp.id => Ok(()),
            _ => Err(VerbsError::UnknownQp(qp.qpn)),
        }
    }

    /// Up to `max` new completions of `cq`, oldest first; their send-queue slots are free again.
    ///
    /// A CQE that names no posted work request (a card or driver bug) is consumed and reported
    /// as `StrayCompletion` on a call that has nothing else to return; completions before it
    /// are returned first, so none is lost and the queue never wedges on it.
    pub fn poll_cq(&mut self, cq: &mut Cq, max: usize) -> Result<Vec<Wc>, VerbsError> {
        self.check_cq(cq)?;
        let mut out = Vec::new();
        let mut stray = None;
        while out.len() < max {
            let slot = cq.ci & (cq.size() - 1);
            let bytes = self.read_buf(cq.ring.iova + slot as u64 * CQE_LEN as u64, CQE_LEN)?;
            let e = Cqe::parse(bytes.as_slice().try_into().expect("a CQE"));
            // The card writes the first pass with owner 1, the next with 0, and so on.
            let phase = ((cq.ci >> cq.log_size) & 1 == 0) as u8;
            if e.owner != phase {
                break;
            }
            let Some(wc) = self.take_work_request(&e) else {
                if out.is_empty() {
                    cq.ci = cq.ci.wrapping_add(1);
                    stray = Some(VerbsError::StrayCompletion { qpn: e.qpn, wqe_index: e.wqe_index });
                }
                break;
            };
            out.push(wc);
            cq.ci = cq.ci.wrapping_add(1);
        }
        if !out.is_empty() || stray.is_some() || cq.ci_untold {
            // The entries are free again: the card may write over them. Completions already
            // taken off the ring are returned even if the card cannot be told now (it then
            // sees a fuller ring, no more); the next poll tells it, or reports the error.
            cq.ci_untold = true;
            match self.dev.write("doorbell", "cq", doorbell(cq.cqn as u16, cq.ci as u16)) {
                Ok(()) => cq.ci_untold = false,
                Err(e) if out.is_empty() && stray.is_none() => return Err(e.into()),
                Err(_) => {}
            }
        }
        if stray.is_none() && out.len() < max {
            // The ring is empty: what QPs in Error still have outstanding comes after it.
            self.flush(cq.cqn, max - out.len(), &mut out);
        }
        stray.map_or(Ok(out), Err)
    }

    /// Up to `max` Flushed completions for the work requests still outstanding on QPs in
    /// Error that report to CQ `cqn`, oldest first per queue. The driver makes them (as
    /// software-flush providers do): the card stopped the QP at the Error commit and
    /// completes nothing more of it.
    fn flush(&mut self, cqn: u32, max: usize, out: &mut Vec<Wc>) {
        let mut qpns: Vec<u32> = self.books.iter().filter(|(_, b)| b.flushing).map(|(q, _)| *q).collect();
        qpns.sort_unstable();
        for qpn in qpns {
            let book = self.books.get_mut(&qpn).expect("book");
            let flushed = |wr_id, op| Wc { wr_id, status: CqStatus::Flushed, op, byte_len: 0, qpn, imm: None };
            if book.send_cq == cqn {
                for index in Book::in_order(&book.posted) {
                    if out.len() == max {
                        return;
                    }
                    let (wr_id, op, _, _) = book.posted.remove(&index).expect("outstanding");
                    out.push(flushed(wr_id, completion_op(op)));
                }
            }
            if book.recv_cq == cqn {
                for index in Book::in_order(&book.received) {
                    if out.len() == max {
                        return;
                    }
                    out.push(flushed(book.received.remove(&index).expect("outstanding"), CqOp::Recv));
                }
            }
        }
    }

    /// The work completion of a CQE, its work request taken off the books; None if the CQE
    /// names none.
    fn take_work_request(&mut self, e: &Cqe) -> Option<Wc> {
        let book = self.books.get_mut(&e.qpn)?;
        let status = CqStatus::from_code(e.status).unwrap_or(CqStatus::RemoteInvalidRequest);
        if [CqOp::Recv as u8, CqOp::RecvRdmaImm as u8].contains(&e.op) {
            let wr_id = book.received.remove(&e.wqe_index)?;
            let op = if e.op == CqOp::Recv as u8 { CqOp::Recv } else { CqOp::RecvRdmaImm };
            let imm = (e.flags & cqe_flags::IMM != 0).then_some(e.imm);
            Some(Wc { wr_id, status, op, byte_len: e.byte_len, qpn: e.qpn, imm })
        } else {
            if !book.posted.contains_key(&e.wqe_index) {
                return None;
            }
            // The WQEs before it that completed silently (without SIGNALED) are done too:
            // the queue completes in order.
            let older: Vec<u16> = Book::in_order(&book.posted).into_iter().take_while(|&i| i != e.wqe_index).collect();
            for i in older {
                book.posted.remove(&i);
            }
            let (wr_id, op, len, _) = book.posted.remove(&e.wqe_index)?;
            let byte_len = if status == CqStatus::Success { len } else { 0 };
            Some(Wc { wr_id, status, op: completion_op(op), byte_len, qpn: e.qpn, imm: None })
        }
    }

    /// A QP in Reset with the queue sizes of `caps`, whose send completions go to `send_cq`
    /// and receive completions to `recv_cq` (they may be the same CQ).
    pub fn create_qp(&mut self, pd: Pd, send_cq: &Cq, recv_cq: &Cq, caps: QpCaps) -> Result<Qp, VerbsError> {
        for (what, n, log_max) in [("sq_entries", caps.sq_entries, SQ_LOG_SIZE_MAX), ("rq_entries", caps.rq_entries, RQ_LOG_SIZE_MAX)] {
            if !n.is_power_of_two() || n > 1 << log_max {
                return Err(VerbsError::BadAttribute(what, format!("{n} is not a power of two up to {}", 1u32 << log_max)));
            }
        }
        self.check_pd(pd)?;
        for cq in [send_cq, recv_cq] {
            self.check_cq(cq)?;
        }
        let (sq_entries, rq_entries) = (caps.sq_entries, caps.rq_entries);
        let qpn = self.qps.iter().position(|used| !used).ok_or(VerbsError::NoQp)? as u32;
        let sq = self.alloc_buf(sq_entries as usize * SEND_WQE_LEN, 4096)?;
        let rq = match self.alloc_buf(rq_entries as usize * RECV_WQE_LEN, 4096) {
            Ok(rq) => rq,
            Err(e) => {
                let _ = self.release_buf(sq.iova);
                return Err(e);
            }
        };
        let ctx = QpContext {
            udp_src_port: udp_source_port(qpn),
            sq_base: sq.iova,
            sq_log_size: sq_entries.trailing_zeros() as u8,
            pd: pd.0,
            send_cq: send_cq.cqn,
            rq_base: rq.iova,
            rq_log_size: rq_entries.trailing_zeros() as u8,
            recv_cq: recv_cq.cqn,
            timeout: DEFAULT_TIMEOUT,
            retry_cnt: 7,
            rnr_retry: 7,
            ..QpContext::default()
        };
        if let Err(e) = self.dev.write_qp(qpn, &ctx) {
            for ring in [sq, rq] {
                let _ = self.release_buf(ring.iova);
            }
            return Err(e.into());
        }
        self.qps[qpn as usize] = true;
        let id = self.next_id;
        self.next_id += 1;
        let book = Book {
            id,
            pd: pd.0,
            send_cq: send_cq.cqn,
            recv_cq: recv_cq.cqn,
            sq: Some(sq),
            rq: Some(rq),
            sq_size: sq_entries,
            rq_size: rq_entries,
            sig_all: true,
            ..Default::default()
        };
        self.books.insert(qpn, book);
        Ok(Qp { qpn, pd, state: QpState::Reset, id, sq, sq_log_size: ctx.sq_log_size, sq_pi: 0, posted: 0, rq, rq_pi: 0, ctx })
    }

    /// Move `qp` to `to`, applying `attr` (the verbs transitions: Reset → Init → Rtr → Rts;
    /// any state → Error, after which `poll_cq` returns every outstanding send and receive
    /// work request as Flushed, oldest first; any state → Reset, which discards them).
    /// The QP's state as the card has it: the state software last moved it to, or Error once
    /// the card put it in error (a NAK it sent or got, retries used up, a refused WQE: RC
    /// errors are fatal to the QP) — until software moves it to Reset or Error.
    pub fn query_qp(&mut self, qp: &Qp) -> Result<QpState, VerbsError> {
        self.check_qp(qp)?;
        let word = self.dev.read("qp", &format!("errors_{}", qp.qpn / 32))?;
        Ok(if word >> (qp.qpn % 32) & 1 == 1 { QpState::Error } else { qp.state })
    }

    pub fn modify_qp(&mut self, qp: &mut Qp, to: QpState, attr: &QpAttr) -> Result<(), VerbsError> {
        use QpState::*;
        self.check_qp(qp)?;
        if !qp.state.next_states().contains(&to) {
            return Err(VerbsError::BadTransition { from: qp.state, to });
        }
        let mut ctx = qp.ctx;
        if to != Rtr && attr.max_dest_rd_atomic.is_some() {
            return Err(VerbsError::BadAttribute("max_dest_rd_atomic", "is set on the way to Rtr".into()));
        }
        if to != Rts && attr.max_rd_atomic.is_some() {
            return Err(VerbsError::BadAttribute("max_rd_atomic", "is set on the way to Rts".into()));
        }
        if to == Rtr {
            let path = attr.path.ok_or(VerbsError::BadAttribute("path", "Rtr needs the remote address".into()))?;
            let pmtu = attr.pmtu.ok_or(VerbsError::BadAttribute("pmtu", "Rtr needs the path MTU".into()))?;
            let log = pmtu.trailing_zeros() as u8;
            if !pmtu.is_power_of_two() || !(PMTU_LOG2_MIN..=PMTU_LOG2_MAX).contains(&log) {
                return Err(VerbsError::BadAttribute("pmtu", format!("{pmtu} is not 256, 512, 1024, 2048 or 4096")));
            }
            let dest_qpn = attr.dest_qpn.ok_or(VerbsError::BadAttribute("dest_qpn", "Rtr needs the remote QPN".into()))?;
            if dest_qpn > PSN_MASK {
                return Err(VerbsError::BadAttribute("dest_qpn", format!("{dest_qpn:#x} is wider than 24 bits")));
            }
            if path.flow_label > 0xF_FFFF || path.dscp > 63 || path.ecn > 3 {
                return Err(VerbsError::BadAttribute("path", "flow label is 20 bits, DSCP 6, ECN 2".into()));
            }
            if path.vlan.is_some_and(|v| v.vid > 0xFFF || v.pcp > 7) {
                return Err(VerbsError::BadAttribute("path.vlan", "VID is 12 bits, PCP 3".into()));
            }
            ctx.dest_mac = path.dest_mac;
            ctx.remote_ip = path.remote_ip;
            ctx.vlan = path.vlan;
            ctx.dscp = path.dscp;
            ctx.ecn = path.ecn;
            ctx.ttl = path.hop_limit;
            ctx.flow_label = path.flow_label;
            let rq_psn = attr.rq_psn.ok_or(VerbsError::BadAttribute("rq_psn", "Rtr needs the first receive PSN".into()))?;
            if rq_psn > PSN_MASK {
                return Err(VerbsError::BadAttribute("rq_psn", format!("{rq_psn:#x} is wider than 24 bits")));
            }
            // (Given on the way to Rtr, as in verbs, or the default again: a QP reset and set up
            // anew does not keep an earlier setting.)
            let n = attr.max_dest_rd_atomic.unwrap_or(RD_SLOTS);
            if n > RD_SLOTS {
                return Err(VerbsError::BadAttribute("max_dest_rd_atomic", format!("{n} is more than {RD_SLOTS}")));
            }
            ctx.max_dest_rd_atomic = n;
            ctx.pmtu_log2 = log;
            ctx.dest_qpn = dest_qpn;
            ctx.rq_psn = rq_psn;
        }
        if to == Rts && qp.state == Rtr {
            let psn = attr.sq_psn.ok_or(VerbsError::BadAttribute("sq_psn", "Rts needs the first send PSN".into()))?;
            if psn > PSN_MASK {
                return Err(VerbsError::BadAttribute("sq_psn", format!("{psn:#x} is wider than 24 bits")));
            }
            ctx.sq_psn = psn;
        }
        if to == Rts {
            for (what, v, max) in [("timeout", attr.timeout, 31), ("retry_cnt", attr.retry_cnt, 7), ("rnr_retry", attr.rnr_retry, 7)] {
                if v.is_some_and(|v| v > max) {
                    return Err(VerbsError::BadAttribute(what, format!("{} is more than {max}", v.unwrap_or(0))));
                }
            }
            ctx.timeout = attr.timeout.unwrap_or(ctx.timeout);
            ctx.retry_cnt = attr.retry_cnt.unwrap_or(ctx.retry_cnt);
            ctx.rnr_retry = attr.rnr_retry.unwrap_or(ctx.rnr_retry);
            if let Some(n) = attr.max_rd_atomic {
                if !(1..=RD_SLOTS).contains(&n) {
                    return Err(VerbsError::BadAttribute("max_rd_atomic", format!("{n} is not 1 ... {RD_SLOTS}")));
                }
                ctx.max_rd_atomic = n;
            }
        }
        // The commit restarts the send and receive queues at index 0, so it is made only while
        // nothing is posted (the state changes before posting), or to Reset and Error.
        if (qp.posted != 0 || qp.rq_pi != 0) && !matches!(to, Reset | Error) {
            return Err(VerbsError::BadAttribute("state", "a QP with posted work can only go to Reset or Error".into()));
        }
        ctx.state = to.code();
        // The driver's view changes only once the card has taken the new context.
        // (A WQE the requester read before this commit is dropped by the card, not sent.)
        self.dev.write_qp(qp.qpn, &ctx)?;
        if let Some(b) = self.books.get_mut(&qp.qpn) {
            b.flushing = to == Error;
            if to == Reset {
                b.posted.clear();
                b.received.clear();
            }
        }
        if to == Reset {
            qp.sq_pi = 0;
            qp.posted = 0;
            qp.rq_pi = 0;
        }
        qp.ctx = ctx;
        qp.state = to;
        Ok(())
    }

    /// Destroy a QP: it goes to Reset (the card stops it) and, after a grace period for a
    /// WQE read already on its way, its rings are freed.
    pub fn destroy_qp(&mut self, mut qp: Qp) -> Result<(), VerbsError> {
        let used = qp.posted != 0 || qp.rq_pi != 0;
        self.modify_qp(&mut qp, QpState::Reset, &QpAttr::default())?;
        self.qps[qp.qpn as usize] = false;
        let book = self.books.remove(&qp.qpn).expect("checked by modify_qp");
        if used {
            self.dev.bus().wait(QUIESCE_CYCLES);
        }
        let freed: Vec<_> = [book.sq, book.rq].into_iter().flatten().map(|r| self.release_buf(r.iova)).collect();
        freed.into_iter().collect()
    }

    /// Post one send work request: the WQE goes into the send queue in host memory, then the
    /// doorbell tells the card the new producer index.
    pub fn post_send(&mut self, qp: &mut Qp, wr: &SendWr) -> Result<(), VerbsError> {
        self.post_send_list(qp, std::slice::from_ref(wr))
    }

    /// Post work requests with one doorbell for all of them (as `ibv_post_send` takes a list).
    /// Each is checked before any is written: on an error nothing is posted.
    /// Send-queue slots free for `post_send` (slots return as their completions are polled).
    /// Whether every send of `qp` asks for a completion (`sq_sig_all`; on when created), or
    /// only those with `send_flags::SIGNALED`. Without, a successful send completes
    /// silently and its slot is free once a later completion of the queue is polled.
    pub fn set_sq_sig_all(&mut self, qp: &Qp, on: bool) -> Result<(), VerbsError> {
        self.check_qp(qp)?;
        self.books.get_mut(&qp.qpn).expect("checked").sig_all = on;
        Ok(())
    }

    pub fn sq_free(&self, qp: &Qp) -> u32 {
        self.books.get(&qp.qpn).map_or(0, |b| b.sq_size - b.posted.len() as u32)
    }

    pub fn post_send_list(&mut self, qp: &mut Qp, wrs: &[SendWr]) -> Result<(), VerbsError> {
        for wr in wrs {
            self.check_send(qp, wr)?;
        }
        self.check_qp(qp)?;
        let book = &self.books[&qp.qpn];
        if book.posted.len() + wrs.len() > book.sq_size as usize {
            return Err(VerbsError::SendQueueFull { qpn: qp.qpn, size: qp.sq_size() });
        }
        let sig_all = book.sig_all;
        // Pushed when at most PUSH_OUTSTANDING_MAX WQEs wait for their completion (a request /
        // response exchange: the card has long fetched them and takes this one from its
        // registers at once); behind a stream of outstanding WQEs the card reads a batch from
        // the ring anyway, and a doorbell is one register write instead of seventeen.
        let push = wrs.len() == 1 && book.posted.len() <= PUSH_OUTSTANDING_MAX && self.wqe_push && self.dev.has("push");
        // Inline bytes are copied first: a buffer that cannot be read fails the post before
        // anything is written.
        let mut wqes = Vec::with_capacity(wrs.len());
        for wr in wrs {
            let mut wqe = wr.wqe();
            if wr.flags & send_flags::INLINE != 0 {
                let data = match wr.length {
                    0 => Vec::new(),
                    n => self.read_buf(wr.local_addr, n as usize).map_err(|e| VerbsError::InlineBuffer(wr.local_addr, n, e.to_string()))?,
                };
                wqe = wqe.with_inline(&data).expect("checked by check_send");
            }
            wqes.push(wqe);
        }
        let mut last = None;
        for (wr, mut wqe) in wrs.iter().zip(wqes) {
            if sig_all {
                wqe.flags |= send_flags::SIGNALED;
            }
            let slot = qp.sq_pi as u64 & (qp.sq_size() as u64 - 1);
            self.write_buf(qp.sq.iova + slot * SEND_WQE_LEN as u64, &wqe.pack())?;
            last = Some(wqe);
            self.books.get_mut(&qp.qpn).expect("book").posted.insert(qp.sq_pi, (wr.wr_id, wr.op, wr.length, wr.lkey));
            qp.sq_pi = qp.sq_pi.wrapping_add(1);
            qp.posted += 1;
        }
        match last {
            // Pushed through BAR0 with its doorbell, so the card need not read it (as mlx5's
            // BlueFlame); otherwise the doorbell alone and the card reads its batch.
            Some(wqe) if push => self.dev.push_send_wqe(qp.qpn as u16, qp.sq_pi, &wqe.pack())?,
            Some(_) => self.dev.write("doorbell", "sq", doorbell(qp.qpn as u16, qp.sq_pi))?,
            None => {}
        }
        Ok(())
    }

    /// Whether a single send WQE is pushed through BAR0 with its doorbell when at most
    /// [`PUSH_OUTSTANDING_MAX`] wait (on by default): sixteen more register writes, one WQE
    /// read less.
    pub fn set_wqe_push(&mut self, on: bool) {
        self.wqe_push = on;
    }

    /// Post receive buffers with one doorbell for all of them (as `ibv_post_recv` takes a
    /// list): from Init on, so they can wait before the QP is connected. On an error nothing
    /// is posted.
    pub fn post_recv(&mut self, qp: &mut Qp, wrs: &[RecvWr]) -> Result<(), VerbsError> {
        if !matches!(qp.state, QpState::Init | QpState::Rtr | QpState::Rts) {
            return Err(VerbsError::NotReadyToReceive(qp.state));
        }
        self.check_qp(qp)?;
        let book = &self.books[&qp.qpn];
        if book.received.len() + wrs.len() > book.rq_size as usize {
            return Err(VerbsError::RecvQueueFull { qpn: qp.qpn, size: qp.rq_size() });
        }
        for wr in wrs {
            if wr.length > MAX_MESSAGE || wr.addr.checked_add(wr.length as u64).is_none() {
                return Err(VerbsError::BadAttribute("recv length", format!("{} bytes at {:#x}", wr.length, wr.addr)));
            }
        }
        for wr in wrs {
            let wqe = RecvWqe { wr_id: wr.wr_id, addr: wr.addr, length: wr.length, lkey: wr.lkey };
            let slot = qp.rq_pi as u64 & (qp.rq_size() as u64 - 1);
            self.write_buf(qp.rq.iova + slot * RECV_WQE_LEN as u64, &wqe.pack())?;
            self.books.get_mut(&qp.qpn).expect("book").received.insert(qp.rq_pi, wr.wr_id);
            qp.rq_pi = qp.rq_pi.wrapping_add(1);
        }
        if !wrs.is_empty() {
            self.dev.write("doorbell", "rq", doorbell(qp.qpn as u16, qp.rq_pi))?;
        }
        Ok(())
    }

    fn check_send(&self, qp: &Qp, wr: &SendWr) -> Result<(), VerbsError> {
        if qp.state != QpState::Rts {
            return Err(VerbsError::NotReadyToSend(qp.state));
        }
        check_shape(wr.op, wr.length, wr.flags & send_flags::INLINE != 0).map_err(|e| match e {
            ShapeError::TooLong(n) => VerbsError::TooLong(n as u64),
            ShapeError::AtomicLength(n) => VerbsError::AtomicLength(n),
            ShapeError::InlineTooLong(n) => VerbsError::InlineTooLong(n),
            ShapeError::InlineOp(op) => VerbsError::InlineOp(op),
        })
    }
}

/// The operation a send work request's completion reports.
fn completion_op(op: SendOp) -> CqOp {
    match op {
        SendOp::Read => CqOp::Read,
        SendOp::Write | SendOp::WriteImm => CqOp::Write,
        SendOp::Send | SendOp::SendImm => CqOp::Send,
        SendOp::CmpSwap => CqOp::CmpSwap,
        SendOp::FetchAdd => CqOp::FetchAdd,
    }
}

/// UDP source port of a QP's packets: in the dynamic range, spread by QPN so ECMP fabrics
/// hash different QPs onto different paths (IBTA A17.5.1.1 leaves the choice to the sender).
pub fn udp_source_port(qpn: u32) -> u16 {
    0xC000 | ((qpn.wrapping_mul(0x9E37) >> 2) & 0x3FFF) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outstanding_entries_come_oldest_first_across_the_index_wrap() {
        let book: HashMap<u16, ()> = [0xFFFE, 1, 0xFFFF, 0].into_iter().map(|k| (k, ())).collect();
        assert_eq!(Book::in_order(&book), [0xFFFE, 0xFFFF, 0, 1]);
        let book: HashMap<u16, ()> = [7, 5, 6].into_iter().map(|k| (k, ())).collect();
        assert_eq!(Book::in_order(&book), [5, 6, 7]);
        assert!(Book::in_order(&HashMap::<u16, ()>::new()).is_empty());
    }
}
