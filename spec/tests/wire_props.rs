//! Property tests of the wire formats: parse(pack(x)) == x for every header and for whole
//! packets through the reference receive model, and the ICRC's coverage rules.

use proptest::prelude::*;
use rnic_spec::wire::crc::IpVersion;
use rnic_spec::wire::eth::{EthHeader, Vlan};
use rnic_spec::wire::ib::{Aeth, AtomicEth, Bth, Deth, Ext, Reth};
use rnic_spec::wire::ip::{Ipv4Header, Ipv6Header};
use rnic_spec::wire::opcode::OPCODES;
use rnic_spec::wire::packet::{IpHeader, RocePacket};
use rnic_spec::wire::rx::{classify, DropReason, RxConfig};
use rnic_spec::wire::udp::UdpHeader;
use rnic_spec::wire::{ExtHeader, Opcode};

fn vlan() -> impl Strategy<Value = Option<Vlan>> {
    prop::option::of((0u8..8, any::<bool>(), 0u16..4096).prop_map(|(pcp, dei, vid)| Vlan { pcp, dei, vid }))
}

fn eth() -> impl Strategy<Value = EthHeader> {
    (any::<[u8; 6]>(), any::<[u8; 6]>(), vlan(), any::<u16>()).prop_map(|(dst, src, vlan, t)| {
        // An inner type of 0x8100 would read as a second tag.
        let ethertype = if t == 0x8100 { 0x0800 } else { t };
        EthHeader { dst, src, vlan, ethertype }
    })
}

fn ipv4() -> impl Strategy<Value = Ipv4Header> {
    (0u8..16, 0u8..64, 0u8..4, any::<u16>(), any::<u16>(), 0u8..8, 0u16..0x2000, any::<u8>(), any::<u8>(), any::<u16>(), any::<[u8; 4]>(), any::<[u8; 4]>())
        .prop_map(|(ihl, dscp, ecn, total_len, id, flags, frag_offset, ttl, protocol, checksum, src, dst)| Ipv4Header {
            ihl, dscp, ecn, total_len, id, flags, frag_offset, ttl, protocol, checksum, src, dst,
        })
}

fn ipv6() -> impl Strategy<Value = Ipv6Header> {
    (0u8..64, 0u8..4, 0u32..0x10_0000, any::<u16>(), any::<u8>(), any::<u8>(), any::<[u8; 16]>(), any::<[u8; 16]>())
        .prop_map(|(dscp, ecn, flow_label, payload_len, next_header, hop_limit, src, dst)| Ipv6Header {
            dscp, ecn, flow_label, payload_len, next_header, hop_limit, src, dst,
        })
}

fn bth() -> impl Strategy<Value = Bth> {
    (any::<u8>(), any::<bool>(), any::<bool>(), 0u8..4, 0u8..16, any::<u16>(), any::<bool>(), any::<bool>(), 0u32..1 << 24, any::<bool>(), 0u32..1 << 24)
        .prop_map(|(opcode, se, mig, pad, tver, pkey, fecn, becn, dest_qp, ack_req, psn)| Bth {
            opcode, se, mig, pad, tver, pkey, fecn, becn, dest_qp, ack_req, psn,
        })
}

fn ext_of(kind: ExtHeader) -> BoxedStrategy<Ext> {
    match kind {
        ExtHeader::Reth => (any::<u64>(), any::<u32>(), any::<u32>())
            .prop_map(|(va, rkey, dma_len)| Ext::Reth(Reth { va, rkey, dma_len }))
            .boxed(),
        ExtHeader::Aeth => (any::<u8>(), 0u32..1 << 24).prop_map(|(syndrome, msn)| Ext::Aeth(Aeth { syndrome, msn })).boxed(),
        ExtHeader::ImmDt => any::<u32>().prop_map(Ext::ImmDt).boxed(),
        ExtHeader::Ieth => any::<u32>().prop_map(Ext::Ieth).boxed(),
        ExtHeader::Deth => (any::<u32>(), 0u32..1 << 24).prop_map(|(qkey, src_qp)| Ext::Deth(Deth { qkey, src_qp })).boxed(),
        ExtHeader::AtomicEth => (any::<u64>(), any::<u32>(), any::<u64>(), any::<u64>())
            .prop_map(|(va, rkey, swap_add, compare)| Ext::AtomicEth(AtomicEth { va, rkey, swap_add, compare }))
            .boxed(),
        ExtHeader::AtomicAckEth => any::<u64>().prop_map(Ext::AtomicAckEth).boxed(),
        ExtHeader::CnpReserved => Just(Ext::CnpReserved).boxed(),
    }
}

/// A valid RoCE v2 packet of any supported opcode, IPv4 or IPv6, with or without VLAN.
fn packet() -> impl Strategy<Value = RocePacket> {
    (0..OPCODES.len(), eth(), prop::bool::ANY, ipv4(), ipv6(), bth(), 0usize..300, any::<u16>())
        .prop_flat_map(|(i, eth, v6, v4h, v6h, bth, len, sport)| {
            let op: &'static Opcode = &OPCODES[i];
            let exts: Vec<BoxedStrategy<Ext>> = op.ext.iter().map(|&k| ext_of(k)).collect();
            let len = if op.payload { len } else { 0 };
            (exts, prop::collection::vec(any::<u8>(), len)).prop_map(move |(ext, payload)| {
                let ip = if v6 {
                    IpHeader::V6(Ipv6Header { next_header: 17, ..v6h })
                } else {
                    IpHeader::V4(Ipv4Header { ihl: 5, flags: v4h.flags & 0b010, frag_offset: 0, protocol: 17, ..v4h })
                };
                let bth = Bth { opcode: op.code, tver: 0, ..bth };
                let mut p = RocePacket::new(eth, ip, bth, ext, payload);
                p.udp.src_port = sport;
                p
            })
        })
}

proptest! {
    #[test]
    fn eth_roundtrip(h in eth()) {
        let mut b = vec![];
        h.pack(&mut b);
        prop_assert_eq!(b.len(), h.len());
        prop_assert_eq!(EthHeader::parse(&b).unwrap(), (h, h.len()));
    }

    #[test]
    fn ipv4_roundtrip(h in ipv4()) {
        let mut b = vec![];
        h.pack(&mut b);
        prop_assert_eq!(Ipv4Header::parse(&b).unwrap(), (h, 20));
    }

    #[test]
    fn ipv4_checksum_verifies(h in ipv4()) {
        let mut b = vec![];
        h.with_checksum().pack(&mut b);
        prop_assert_eq!(rnic_spec::wire::ip::internet_checksum(&b), 0);
    }

    #[test]
    fn ipv6_roundtrip(h in ipv6()) {
        let mut b = vec![];
        h.pack(&mut b);
        prop_assert_eq!(Ipv6Header::parse(&b).unwrap(), (h, 40));
    }

    #[test]
    fn udp_roundtrip(src_port: u16, dst_port: u16, length: u16, checksum: u16) {
        let h = UdpHeader { src_port, dst_port, length, checksum };
        let mut b = vec![];
        h.pack(&mut b);
        prop_assert_eq!(UdpHeader::parse(&b).unwrap(), (h, 8));
    }

    #[test]
    fn bth_roundtrip(h in bth()) {
        let mut b = vec![];
        h.pack(&mut b);
        prop_assert_eq!(Bth::parse(&b).unwrap(), (h, 12));
    }

    #[test]
    fn ext_roundtrip(e in prop::sample::select(vec![
        ExtHeader::Reth, ExtHeader::Aeth, ExtHeader::ImmDt, ExtHeader::Ieth, ExtHeader::Deth,
        ExtHeader::AtomicEth, ExtHeader::AtomicAckEth, ExtHeader::CnpReserved,
    ]).prop_flat_map(ext_of)) {
        let mut b = vec![];
        e.pack(&mut b);
        prop_assert_eq!(b.len(), e.kind().len());
        prop_assert_eq!(Ext::parse(e.kind(), &b).unwrap(), (e, e.kind().len()));
    }

    /// A built packet classifies as accepted and parses back to itself, with and without FCS.
    #[test]
    fn packet_roundtrip(p in packet()) {
        let r = classify(&p.frame(), RxConfig { fcs: false });
        prop_assert_eq!(r.verdict, Ok(()));
        prop_assert_eq!(r.packet.as_ref(), Some(&p));
        let r = classify(&p.frame_with_fcs(), RxConfig { fcs: true });
        prop_assert_eq!(r.verdict, Ok(()));
    }

    /// Routers may rewrite ECN (CE marking), TTL / hop limit and the IPv4 checksum; the ICRC
    /// stays valid.
    #[test]
    fn icrc_survives_ce_and_ttl(p in packet(), ttl: u8) {
        // The ICRC inside `frame` is computed before the rewrite; only the IP header changes.
        let mut frame = p.frame();
        let l2 = p.eth.len();
        let mut b = vec![];
        match p.ip {
            IpHeader::V4(mut h) => { h.ecn = 3; h.ttl = ttl; h.with_checksum().pack(&mut b); }
            IpHeader::V6(mut h) => { h.ecn = 3; h.hop_limit = ttl; h.pack(&mut b); }
        }
        frame[l2..l2 + b.len()].copy_from_slice(&b);
        prop_assert_eq!(classify(&frame, RxConfig { fcs: false }).verdict, Ok(()));
    }
}

/// Flipping any single bit that the ICRC covers and does not mask makes the frame fail, with
/// `bad_icrc` when the flipped bit leaves the headers self-consistent.
#[test]
fn icrc_detects_every_single_bit_flip() {
    for (v6, vlan) in [(false, false), (true, true)] {
        let eth = EthHeader { vlan: vlan.then_some(Vlan { pcp: 3, dei: false, vid: 100 }), ..Default::default() };
        let ip = if v6 { IpHeader::V6(Ipv6Header::default()) } else { IpHeader::V4(Ipv4Header::default()) };
        let bth = Bth { opcode: 0x0A, dest_qp: 0x12, psn: 0x345, ..Default::default() };
        let ext = vec![Ext::Reth(Reth { va: 0x1000, rkey: 0x77, dma_len: 40 })];
        let p = RocePacket::new(eth, ip, bth, ext, (0..40).collect());
        let frame = p.frame();
        let l2 = p.eth.len();
        let version = if v6 { IpVersion::V6 } else { IpVersion::V4 };
        // Masking a zero buffer leaves exactly the masked bits set.
        let mut masked_bits = vec![0u8; frame.len() - l2];
        rnic_spec::wire::crc::icrc_mask(version, &mut masked_bits);
        for byte in l2..frame.len() - 4 {
            for bit in 0..8 {
                if masked_bits[byte - l2] & (1 << bit) != 0 {
                    continue;
                }
                let mut f = frame.clone();
                f[byte] ^= 1 << bit;
                let v = classify(&f, RxConfig { fcs: false }).verdict;
                assert!(v.is_err(), "flip of byte {byte} bit {bit} accepted (v6 {v6})");
            }
        }
        // A flip inside the payload is caught by the ICRC alone.
        let mut f = frame.clone();
        f[frame.len() - 10] ^= 0x10;
        assert_eq!(classify(&f, RxConfig { fcs: false }).verdict, Err(DropReason::BadIcrc));
    }
}
