//! Every single-bit flip of a RoCE frame through the RTL receive pipeline: flipping a bit the
//! ICRC covers and does not mask drops the frame, with the reference model's reason; flipping
//! a masked bit (ECN/DSCP, TTL / hop limit, flow label, UDP checksum, FECN/BECN) keeps it valid
//! whenever the model says the headers stay consistent.

use rnic_sim::rx::RxSim;
use rnic_spec::wire::crc::{icrc_mask, IpVersion};
use rnic_spec::wire::eth::{EthHeader, Vlan};
use rnic_spec::wire::ib::{Bth, Ext, Reth};
use rnic_spec::wire::ip::{Ipv4Header, Ipv6Header};
use rnic_spec::wire::packet::{IpHeader, RocePacket};
use rnic_spec::wire::rx::{classify, RxConfig};

fn frame(v6: bool, vlan: bool) -> (Vec<u8>, usize, IpVersion) {
    let eth = EthHeader {
        dst: [2, 0, 0, 0, 0, 0xb],
        src: [2, 0, 0, 0, 0, 0xa],
        vlan: vlan.then_some(Vlan { pcp: 3, dei: false, vid: 100 }),
        ethertype: 0,
    };
    let ip = if v6 {
        IpHeader::V6(Ipv6Header { src: [0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], ..Default::default() })
    } else {
        IpHeader::V4(Ipv4Header { src: [192, 0, 2, 1], dst: [192, 0, 2, 2], ..Default::default() })
    };
    let bth = Bth { opcode: 0x0B, dest_qp: 0x12, psn: 0x345, ..Default::default() };
    let ext = vec![Ext::Reth(Reth { va: 0x1000, rkey: 0x77, dma_len: 70 }), Ext::ImmDt(0xC0DE)];
    let p = RocePacket::new(eth, ip, bth, ext, (0..70).collect());
    (p.frame(), p.eth.len(), p.ip.version())
}

#[test]
fn every_bit_flip_matches_the_model() {
    for (v6, vlan) in [(false, false), (true, true), (false, true), (true, false)] {
        let (f, l2, version) = frame(v6, vlan);
        let mut masked = vec![0u8; f.len() - l2];
        icrc_mask(version, &mut masked);
        let mut rx = RxSim::new(false).unwrap();
        let mut expected = Vec::new();
        let mut covered_flips = 0;
        for byte in 0..f.len() {
            for bit in 0..8 {
                let mut g = f.clone();
                g[byte] ^= 1 << bit;
                let e = classify(&g, RxConfig { fcs: false }).verdict;
                let in_icrc = byte >= l2 && byte < f.len() - 4;
                if in_icrc && masked[byte - l2] & (1 << bit) == 0 {
                    assert!(e.is_err(), "model accepts flip {byte}.{bit}");
                    covered_flips += 1;
                }
                expected.push((byte, bit, e));
                rx.send(&g, |_| 0);
            }
        }
        rx.drain(expected.len(), 100_000);
        let records = rx.take_records();
        assert_eq!(records.len(), expected.len());
        for (r, (byte, bit, e)) in records.iter().zip(&expected) {
            assert_eq!(r.drop, e.err(), "flip of byte {byte} bit {bit} (v6 {v6}, vlan {vlan})");
        }
        assert!(covered_flips > 8 * 100, "{covered_flips}");
    }
}
