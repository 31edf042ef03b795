//! Two simulated cards on a link, each driven through the verbs API, with QPs connected
//! between them: what the end-to-end tests, the benchmarks and `rnic sim demo` set up.

use crate::device::Device;
use crate::sim_bus::WorldCard;
use crate::verbs::{Context, Cq, Path, Pd, Qp, QpAttr, QpCaps, QpState, VerbsError, Wc};
use rnic_sim::world::{LinkConfig, World};
use rnic_spec::qp::{PortAddress, QpContext, RemoteIp};
use rnic_spec::responder::Response;
use rnic_spec::wire::ib::Reth;
use rnic_spec::wire::packet::RocePacket;
use rnic_spec::wire::rx::{classify, RxConfig};
use rnic_spec::wire::tx::{IpPair, TxDescriptor};
use rnic_spec::wire::eth::Vlan;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

pub type Card = Context<WorldCard>;

/// Local ACK timeout of QPs on a simulated link that drops packets (the demo over a faulty
/// link, the benchmarks): 4.096 µs × 2^6 = 262 µs, about three times the wire time of a 1 MiB
/// message, where perftest's 67 ms would dominate a run.
pub const LOSSY_LINK_TIMEOUT: u8 = 6;

/// Port `i`'s addresses: documentation ranges only (192.0.2.0/24, 2001:db8::/32).
pub fn port(i: u8) -> PortAddress {
    let mut ipv6 = [0u8; 16];
    ipv6[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
    ipv6[15] = i + 1;
    PortAddress { mac: [0x02, 0, 0, 0, 0, i + 1], ipv4: [192, 0, 2, i + 1], ipv6 }
}

/// Why the simulated pair could not be set up.
#[derive(Debug)]
pub enum PairError {
    Sim(rnic_sim::SimError),
    Device(crate::device::DeviceError),
    Verbs(VerbsError),
}

impl std::fmt::Display for PairError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PairError::Sim(e) => write!(f, "{e}"),
            PairError::Device(e) => write!(f, "{e}"),
            PairError::Verbs(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for PairError {}

/// Two cards on a link, opened and given their port addresses.
pub fn try_two_cards(link: LinkConfig) -> Result<(Rc<RefCell<World>>, Card, Card), PairError> {
    try_two_cards_with_host(link, rnic_sim::host::HostTiming::default())
}

/// [`try_two_cards`] with hosts that answer DMA with `host`.
pub fn try_two_cards_with_host(link: LinkConfig, host: rnic_sim::host::HostTiming) -> Result<(Rc<RefCell<World>>, Card, Card), PairError> {
    let (world, [a, b]) = WorldCard::pair(World::with_host(link, host).map_err(PairError::Sim)?);
    let a = Context::new(Device::open(a).map_err(PairError::Device)?, port(0)).map_err(PairError::Verbs)?;
    let b = Context::new(Device::open(b).map_err(PairError::Device)?, port(1)).map_err(PairError::Verbs)?;
    Ok((world, a, b))
}

/// [`try_two_cards`] for tests: panics on failure.
pub fn two_cards(link: LinkConfig) -> (Rc<RefCell<World>>, Card, Card) {
    try_two_cards(link).expect("two simulated cards")
}

/// How a QP's path looks on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathKind {
    pub v6: bool,
    pub vlan: Option<u16>,
    pub pmtu: u32,
}

/// The path from a card with port `from` to port `to`.
pub fn path(to: u8, kind: PathKind, flow: u32) -> Path {
    let remote = port(to);
    Path {
        dest_mac: remote.mac,
        remote_ip: if kind.v6 { RemoteIp::V6(remote.ipv6) } else { RemoteIp::V4(remote.ipv4) },
        vlan: kind.vlan.map(|vid| Vlan { pcp: 3, dei: false, vid }),
        dscp: 26,
        ecn: 2,
        hop_limit: 64,
        flow_label: if kind.v6 { flow & 0xF_FFFF } else { 0 },
    }
}

/// Move `qp` through Init and Rtr to Rts.
pub fn connect<B: crate::bus::Bus>(card: &mut Context<B>, qp: &mut Qp, to: u8, kind: PathKind, dest_qpn: u32, rq_psn: u32, sq_psn: u32) -> Result<(), VerbsError> {
    card.modify_qp(qp, QpState::Init, &QpAttr::default())?;
    let rtr = QpAttr {
        path: Some(path(to, kind, 0x12345 ^ qp.qpn)),
        pmtu: Some(kind.pmtu),
        dest_qpn: Some(dest_qpn),
        rq_psn: Some(rq_psn),
        ..Default::default()
    };
    card.modify_qp(qp, QpState::Rtr, &rtr)?;
    card.modify_qp(qp, QpState::Rts, &QpAttr { sq_psn: Some(sq_psn), ..Default::default() })
}

/// A connected pair: a QP on card 0 and one on card 1 (send and receive completions to
/// `cqs`), each other's remote, queues of `caps`, with the given first PSN from 0 to 1 (and
/// `back_psn` from 1 to 0).
#[allow(clippy::too_many_arguments)]
pub fn qp_pair(
    a: &mut Card,
    b: &mut Card,
    pds: (Pd, Pd),
    cqs: (&Cq, &Cq),
    kind: PathKind,
    caps: QpCaps,
    psns: (u32, u32),
) -> Result<(Qp, Qp), VerbsError> {
    let (psn, back_psn) = psns;
    let mut qa = a.create_qp(pds.0, cqs.0, cqs.0, caps)?;
    let mut qb = b.create_qp(pds.1, cqs.1, cqs.1, caps)?;
    connect(a, &mut qa, 1, kind, qb.qpn, back_psn, psn)?;
    connect(b, &mut qb, 0, kind, qa.qpn, psn, back_psn)?;
    Ok((qa, qb))
}

/// A request packet from card 0 (sent raw, through its `txd` port) to card 1's QP `to_qpn`
/// with context `to`: the reverse of that QP's path, with the given transport fields.
#[allow(clippy::too_many_arguments)]
pub fn raw_request(
    to: &QpContext,
    to_qpn: u32,
    opcode: u8,
    psn: u32,
    reth: Reth,
    payload_len: u16,
    ack_req: bool,
) -> TxDescriptor {
    let mut d = Response { syndrome: 0, psn, msn: 0 }.descriptor(&port(0), to);
    let card1 = port(1);
    d.eth_dst = card1.mac;
    d.ip = match d.ip {
        IpPair::V4 { src, .. } => IpPair::V4 { src, dst: card1.ipv4 },
        IpPair::V6 { src, .. } => IpPair::V6 { src, dst: card1.ipv6 },
    };
    TxDescriptor { opcode, dest_qp: to_qpn, ack_req, reth, payload_len, aeth: Default::default(), ..d }
}

/// The frames card `from` put on the wire, parsed by the reference receiver, in order; each
/// must be valid RoCE v2 (a test helper: it panics on one that is not).
pub fn sent_packets(world: &World, from: usize) -> Vec<(RocePacket, Vec<u8>)> {
    world
        .sent_by(from)
        .map(|(_, frame)| {
            let r = classify(frame, RxConfig { fcs: false });
            assert_eq!(r.verdict, Ok(()), "card {from} sends valid RoCE v2 frames");
            (r.packet.expect("parsed"), frame.clone())
        })
        .collect()
}

/// Card `from`'s frames by the QP they go to.
pub fn frames_by_dest_qp(world: &World, from: usize) -> HashMap<u32, Vec<Vec<u8>>> {
    let mut out: HashMap<u32, Vec<Vec<u8>>> = HashMap::new();
    for (p, frame) in sent_packets(world, from) {
        out.entry(p.bth.dest_qp).or_default().push(frame);
    }
    out
}

/// Frames sent against frames expected, byte for byte, naming the first difference.
pub fn assert_frames(got: &[Vec<u8>], want: &[Vec<u8>], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: frames");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let first_diff = g.iter().zip(w).position(|(x, y)| x != y);
        assert!(g == w, "{what}: frame {k}: {} bytes sent, {} expected, first difference at {first_diff:?}", g.len(), w.len());
    }
}

/// One answer expected on the wire: its frames, and whether a later answer may replace it
/// (`replaceable`: it may stop after any of its frames, before the first too).
pub struct Answer {
    pub frames: Vec<Vec<u8>>,
    pub replaceable: bool,
}

/// Frames sent against answers expected in order, a replaceable one cut short anywhere;
/// returns how many were cut. Panics naming the answer no cut makes the frames fit.
pub fn assert_answers(got: &[Vec<u8>], want: &[Answer], what: &str) -> usize {
    // Every way of cutting the answers so far: frames consumed → answers cut (the first found).
    let mut at: std::collections::BTreeMap<usize, usize> = [(0, 0)].into();
    for (i, a) in want.iter().enumerate() {
        let mut next = std::collections::BTreeMap::new();
        for (&p, &cuts) in at.iter().rev() {
            let fit = a.frames.iter().zip(&got[p.min(got.len())..]).take_while(|(w, g)| w == g).count();
            if fit == a.frames.len() {
                next.entry(p + fit).or_insert(cuts);
            }
            if a.replaceable {
                for k in (0..fit.min(a.frames.len().saturating_sub(1)) + 1).rev() {
                    next.entry(p + k).or_insert(cuts + 1);
                }
            }
        }
        assert!(!next.is_empty(), "{what}: answer {i} ({} frames) fits after none of the frames sent before it (reached {:?} of {})", a.frames.len(), at.keys().last(), got.len());
        at = next;
    }
    *at.get(&got.len()).unwrap_or_else(|| panic!("{what}: {} frames sent, the answers account for {:?}", got.len(), at.keys().collect::<Vec<_>>()))
}

/// Runs until card `from` has sent at least `least` frames and then nothing for `quiet` cycles
/// with the link idle (for answers whose length the card decides: replaced READs); false if
/// `max` cycles pass first.
pub fn run_until_quiet(world: &Rc<RefCell<World>>, from: usize, least: usize, quiet: u64, max: u64) -> bool {
    let (mut seen, mut still) = (usize::MAX, 0u64);
    world.borrow_mut().run_until(max, |w| {
        let n = w.capture().len();
        still = if n == seen && w.link_idle() { still + 1 } else { 0 };
        seen = n;
        still >= quiet && w.sent_by(from).count() >= least
    })
}

/// Runs the world `step` cycles at a time until `card`'s `cq` has given at least `n` work
/// completions or `max` cycles have passed; returns every completion it gave (more than `n` if
/// the card wrote more: a test compares them).
pub fn run_for_completions(world: &Rc<RefCell<World>>, card: &mut Card, cq: &mut Cq, n: usize, step: u64, max: u64) -> Result<Vec<Wc>, VerbsError> {
    let (mut out, mut ran) = (Vec::new(), 0);
    while out.len() < n && ran < max {
        world.borrow_mut().run_until(step, |_| false);
        ran += step;
        out.extend(card.poll_cq(cq, 64)?);
    }
    Ok(out)
}
