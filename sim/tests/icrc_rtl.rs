//! RTL ICRC check (hdl/src/roce/icrc.rs) in Verilator against the spec ICRC: random RoCE
//! packets of every opcode over IPv4/IPv6 with and without VLAN, with random corruptions,
//! router rewrites (CE, TTL / hop limit, FECN/BECN) and idle cycles, back to back.

mod common;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_sim::axis::beats;
use rnic_sim::Model;
use rnic_spec::wire::crc::{icrc_mask, IpVersion};
use rnic_spec::wire::eth::EthHeader;
use rnic_spec::wire::packet::IpHeader;

/// The spec's verdict for a frame whose layout fields are intact.
fn icrc_ok(frame: &[u8], l2: usize, version: IpVersion, ip_len: usize) -> bool {
    let ip = &frame[l2..l2 + ip_len];
    let received = u32::from_le_bytes(ip[ip_len - 4..].try_into().unwrap());
    rnic_spec::wire::icrc(version, &ip[..ip_len - 4]) == received
}

#[test]
fn icrc_check_matches_spec() {
    let mut rng = SmallRng::seed_from_u64(0x1c2c);
    let mut m = Model::new("rnic_icrc_check").unwrap();
    let p = |m: &Model, n: &str| m.port(n).unwrap();
    let (iv, id, ic, il) = (p(&m, "in_valid"), p(&m, "in_data"), p(&m, "in_count"), p(&m, "in_last"));
    let (ov, ook) = (p(&m, "out_valid"), p(&m, "out_ok"));
    let mut expected = Vec::new();
    let mut got = Vec::new();
    let (mut rewrites, mut corruptions) = (0, 0);
    for _ in 0..3000 {
        let pkt = common::random_packet(&mut rng, 300);
        let mut frame = pkt.frame();
        let l2 = pkt.eth.len();
        let version = pkt.ip.version();
        let ip_len = pkt.ip_packet().len();
        let hdr_len = match pkt.ip { IpHeader::V4(_) => 20, IpHeader::V6(_) => 40 };
        match rng.gen_range(0..3) {
            0 => {
                // Flip a bit anywhere in the ICRC coverage or the ICRC, except the fields that
                // give the layout (Ethernet type, IP length), which the ICRC block reads.
                let len_field = l2 + if hdr_len == 20 { 2 } else { 4 };
                let i = loop {
                    let i = rng.gen_range(l2..l2 + ip_len);
                    if i != len_field && i != len_field + 1 && !(hdr_len == 40 && i == l2) {
                        break i;
                    }
                };
                frame[i] ^= 1 << rng.gen_range(0..8);
                corruptions += 1;
            }
            1 => {
                // A router rewrites variant fields: every masked bit may change.
                let mut masked = vec![0u8; ip_len];
                icrc_mask(version, &mut masked);
                for (k, mbits) in masked.iter().enumerate() {
                    frame[l2 + k] ^= mbits & rng.gen::<u8>();
                }
                // The version nibble of IPv6 is not masked; keep the frame parseable.
                rewrites += 1;
            }
            _ => {}
        }
        let ok = icrc_ok(&frame, l2, version, ip_len);
        assert_eq!(EthHeader::parse(&frame).unwrap().1, l2);
        expected.push(ok);
        let n = beats(&frame).len();
        for (i, b) in beats(&frame).into_iter().enumerate() {
            while rng.gen_bool(0.15) {
                m.set(iv, 0);
                m.tick();
                if m.get(ov) == 1 {
                    got.push(m.get(ook) == 1);
                }
            }
            m.set(iv, 1);
            m.set_bytes(id, &b.data);
            m.set(ic, b.keep.count_ones() as u64);
            m.set(il, (i + 1 == n) as u64);
            m.tick();
            if m.get(ov) == 1 {
                got.push(m.get(ook) == 1);
            }
        }
    }
    m.set(iv, 0);
    for _ in 0..8 {
        m.tick();
        if m.get(ov) == 1 {
            got.push(m.get(ook) == 1);
        }
    }
    assert_eq!(got.len(), expected.len());
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != expected[i]).collect();
    assert!(bad.is_empty(), "{} mismatches, first at frame {}", bad.len(), bad[0]);
    assert!(rewrites > 500 && corruptions > 500);
    assert!(expected.iter().filter(|&&x| x).count() > 1500);
}
