//! The RTL receive pipeline (hdl/src/roce/rx.rs) in Verilator against the reference model
//! `rnic_spec::wire::rx::classify`: random frames — valid packets of every opcode over IPv4 /
//! IPv6 with and without VLAN, and the same with one random defect — with random idle cycles,
//! with and without FCS. Verdicts, drop reasons, header fields, payload bytes and counters must
//! all match.

mod common;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_sim::rx::{RxRecord, RxSim};
use rnic_spec::wire::ib::Ext;
use rnic_spec::wire::packet::{IpHeader, RocePacket};
use rnic_spec::wire::rx::{classify, DropReason, RxConfig};
use rnic_spec::wire::{fcs, MIN_FRAME_NO_FCS};

/// A frame with one random defect (or none).
fn mutate(rng: &mut SmallRng, p: &RocePacket) -> Vec<u8> {
    let mut f = p.frame();
    let l2 = p.eth.len();
    let l3 = match p.ip { IpHeader::V4(_) => 20, IpHeader::V6(_) => 40 };
    let t = l2 + l3;
    match rng.gen_range(0..19) {
        0..=5 => {}
        16 => {
            // IPv4 options or fragment bits, with a correct checksum.
            if let IpHeader::V4(mut h) = p.ip {
                if rng.gen() {
                    h.ihl = 6;
                } else {
                    h.flags |= 1;
                    h.frag_offset = rng.gen_range(0..8);
                }
                let mut b = vec![];
                h.with_checksum().pack(&mut b);
                f[l2..l2 + 20].copy_from_slice(&b);
            }
        }
        17 => {
            // Too short for the BTH or the extended headers: cut the IP packet after a few
            // transport bytes, lengths kept consistent.
            let ext: usize = p.ext.iter().map(|e| e.kind().len()).sum();
            let n = rng.gen_range(0..16 + ext);
            let ip_len = l3 + 8 + n;
            f.truncate(l2 + ip_len);
            match p.ip {
                IpHeader::V4(mut h) => {
                    h.total_len = ip_len as u16;
                    let mut b = vec![];
                    h.with_checksum().pack(&mut b);
                    f[l2..l2 + 20].copy_from_slice(&b);
                }
                IpHeader::V6(_) => f[l2 + 4..l2 + 6].copy_from_slice(&((8 + n) as u16).to_be_bytes()),
            }
            f[t + 4..t + 6].copy_from_slice(&((8 + n) as u16).to_be_bytes());
        }
        18 => {
            // Payload over 4096 bytes, otherwise a valid packet.
            let mut q = p.clone();
            if rnic_spec::wire::Opcode::lookup(q.bth.opcode).is_some_and(|o| o.payload) {
                q.payload = (0..rng.gen_range(4097..4200)).map(|_| rng.gen()).collect();
                q.finish();
            }
            f = q.frame();
        }
        6 => {
            // Flip a random bit anywhere.
            let i = rng.gen_range(0..f.len());
            f[i] ^= 1 << rng.gen_range(0..8);
        }
        7 => {
            // Flip a bit in the headers.
            let i = rng.gen_range(0..(t + 20).min(f.len()));
            f[i] ^= 1 << rng.gen_range(0..8);
        }
        8 => {
            // Truncate or extend.
            if rng.gen() && f.len() > 61 {
                let n = rng.gen_range(MIN_FRAME_NO_FCS..f.len());
                f.truncate(n);
            } else {
                let n = rng.gen_range(1..70);
                f.extend((0..n).map(|_| rng.gen::<u8>()));
            }
        }
        9 => {
            // Random opcode byte.
            f[t + 8] = rng.gen();
        }
        10 => {
            if rng.gen() {
                // BTH pad count / version nibble.
                f[t + 9] ^= rng.gen_range(1..=0x3Fu8);
            } else {
                // A pad count that disagrees with the length, all lengths consistent.
                let mut q = p.clone();
                q.bth.pad = (q.bth.pad + rng.gen_range(1..4)) % 4;
                let ext: usize = q.ext.iter().map(|e| e.kind().len()).sum();
                let udp_len = 8 + 12 + ext + q.payload.len() + q.bth.pad as usize + 4;
                q.udp.length = udp_len as u16;
                match &mut q.ip {
                    IpHeader::V4(h) => {
                        h.total_len = (20 + udp_len) as u16;
                        *h = h.with_checksum();
                    }
                    IpHeader::V6(h) => h.payload_len = udp_len as u16,
                }
                f = q.frame();
            }
        }
        11 => {
            // UDP destination port or length.
            let at = t + if rng.gen() { 2 } else { 4 };
            f[at + 1] ^= rng.gen_range(1..=255u8);
        }
        12 => {
            // IP length field.
            let at = l2 + if l3 == 20 { 2 } else { 4 };
            f[at + 1] = f[at + 1].wrapping_add(rng.gen_range(1..=8u8));
        }
        13 => {
            // Not IP, or an IPv4 with options / fragment bits / another protocol.
            match rng.gen_range(0..4) {
                0 => f[l2 - 2] = 0x08 ^ 0x0E,
                1 => f[l2] = 0x46,
                2 => f[l2 + 6] |= 0x20,
                _ => f[l2 + if l3 == 20 { 9 } else { 6 }] = 6,
            }
        }
        14 => {
            // The last byte of the ICRC.
            let end = l2 + p.ip_packet().len();
            f[end - 1] ^= 0x80;
        }
        _ => {
            // ECN / TTL rewritten by a router: still valid.
            match p.ip {
                IpHeader::V4(mut h) => {
                    h.ecn = 3;
                    h.ttl = h.ttl.wrapping_sub(1);
                    let mut b = vec![];
                    h.with_checksum().pack(&mut b);
                    f[l2..l2 + 20].copy_from_slice(&b);
                }
                IpHeader::V6(_) => {
                    f[l2 + 1] |= 0x30;
                    f[l2 + 7] = f[l2 + 7].wrapping_sub(1);
                }
            }
        }
    }
    f
}

fn ext_fields_match(r: &RxRecord, ext: &[Ext]) -> bool {
    ext.iter().all(|e| match *e {
        Ext::Reth(x) => r.va == x.va && r.rkey == x.rkey && r.dma_len == x.dma_len,
        Ext::Aeth(x) => r.aeth_syndrome == x.syndrome && r.aeth_msn == x.msn,
        Ext::ImmDt(x) => r.imm == x,
        Ext::Ieth(x) => r.ieth_rkey == x,
        Ext::Deth(x) => r.qkey == x.qkey && r.src_qp == x.src_qp,
        Ext::AtomicEth(x) => r.va == x.va && r.rkey == x.rkey && r.swap_add == x.swap_add && r.compare == x.compare,
        Ext::AtomicAckEth(x) => r.atomic_ack == x,
        Ext::CnpReserved => true,
    })
}

/// Header fields of a record against the model's packet; the buffered record leaves out the
/// destination MAC (the NIC's own).
fn headers_match(r: &RxRecord, p: &RocePacket, with_dst: bool) -> Result<(), String> {
    let v = p.eth.vlan;
    let tci = v.map_or(0, |v| ((v.pcp as u16) << 13) | ((v.dei as u16) << 12) | v.vid);
    let (ipv6, dscp, ecn, ttl, src, dst) = match p.ip {
        IpHeader::V4(h) => (false, h.dscp, h.ecn, h.ttl, u32::from_be_bytes(h.src) as u128, u32::from_be_bytes(h.dst) as u128),
        IpHeader::V6(h) => (true, h.dscp, h.ecn, h.hop_limit, u128::from_be_bytes(h.src), u128::from_be_bytes(h.dst)),
    };
    let b = p.bth;
    let flags = ((b.se as u8) << 7) | ((b.mig as u8) << 6) | (b.pad << 4) | b.tver;
    let checks = [
        ("vlan", r.vlan == v.is_some() && (v.is_none() || r.vlan_tci == tci)),
        ("eth", (!with_dst || r.eth_dst == p.eth.dst) && r.eth_src == p.eth.src),
        ("ip", r.ipv6 == ipv6 && r.dscp == dscp && r.ecn == ecn && r.ttl == ttl && r.ip_src == src && r.ip_dst == dst),
        ("udp", r.udp_src_port == p.udp.src_port),
        ("bth", r.opcode == b.opcode && r.bth_flags == flags && r.pkey == b.pkey && r.fecn == b.fecn && r.becn == b.becn),
        ("bth qp/psn", r.dest_qp == b.dest_qp && r.ack_req == b.ack_req && r.psn == b.psn),
        ("ext", ext_fields_match(r, &p.ext)),
    ];
    for (what, ok) in checks {
        if !ok {
            return Err(format!("{what} differs: rtl {r:?}\nmodel {p:?}"));
        }
    }
    Ok(())
}

fn run(fcs_mode: bool, seed: u64, frames: usize, backpressure: u32) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut rx = RxSim::new(fcs_mode).unwrap();
    rx.set_backpressure(backpressure, seed);
    let mut expected = Vec::new();
    for _ in 0..frames {
        let max = if rng.gen_bool(0.05) { 4096 } else { 300 };
        let p = common::random_packet(&mut rng, max);
        let mut f = mutate(&mut rng, &p);
        if f.len() < MIN_FRAME_NO_FCS {
            f.resize(MIN_FRAME_NO_FCS, 0);
        }
        if fcs_mode {
            let c = fcs(&f);
            f.extend_from_slice(&c.to_le_bytes());
            if rng.gen_bool(0.05) {
                let i = rng.gen_range(0..f.len());
                f[i] ^= 1 << rng.gen_range(0..8);
            }
            if rng.gen_bool(0.02) {
                f.truncate(rng.gen_range(1..64));
            }
        }
        expected.push((classify(&f, RxConfig { fcs: fcs_mode }), f.clone()));
        let gaps = rng.gen_bool(0.5);
        rx.send(&f, |_| if gaps && rng.gen_bool(0.2) { rng.gen_range(1..4) } else { 0 });
    }
    rx.drain(frames, 1_000_000);
    assert!(!rx.fault(), "internal fault latched");
    let records = rx.take_records();
    assert_eq!(records.len(), expected.len(), "one record per frame");
    let mut accepted = 0u64;
    let mut by_reason = std::collections::BTreeMap::new();
    let mut host_frames = 0;
    for (i, (r, (e, frame))) in records.iter().zip(&expected).enumerate() {
        assert_eq!(r.drop, e.verdict.err(), "frame {i}: verdict (code {})", r.reason_code);
        // Not-RoCE frames leave whole, FCS stripped, on the host path; anything else sent there
        // is marked bad.
        if r.drop == Some(DropReason::NotRoce) {
            let (bytes, bad) = r.host.as_ref().unwrap_or_else(|| panic!("frame {i}: not-RoCE frame not on the host path"));
            let want = &frame[..frame.len() - if fcs_mode { 4 } else { 0 }];
            assert_eq!((bytes.as_slice(), *bad), (want, false), "frame {i}: host path");
            host_frames += 1;
        } else if let Some((_, bad)) = &r.host {
            assert!(bad, "frame {i}: {:?} frame on the host path not marked bad", r.drop);
        }
        match e.verdict {
            Ok(()) => accepted += 1,
            Err(reason) => *by_reason.entry(reason).or_insert(0u64) += 1,
        }
        if let Some(p) = &e.packet {
            if let Err(msg) = headers_match(r, p, true) {
                panic!("frame {i}: {msg}");
            }
            if e.verdict.is_ok() {
                assert_eq!(r.payload_len, p.payload.len(), "frame {i}: payload length");
            }
        }
    }
    assert!(host_frames > 100, "{host_frames} host frames");
    // Enough of each kind to mean something.
    assert!(accepted > frames as u64 / 3, "{accepted} accepted");
    for reason in [
        DropReason::BadIcrc,
        DropReason::NotRoce,
        DropReason::IpLength,
        DropReason::UnknownOpcode,
        DropReason::PadLength,
        DropReason::Ipv4Options,
        DropReason::Ipv4Fragment,
        DropReason::BthTruncated,
        DropReason::PayloadTooLong,
        DropReason::ExtTruncated,
    ] {
        assert!(by_reason.get(&reason).copied().unwrap_or(0) > 5, "too few {reason:?}: {by_reason:?}");
    }
    eprintln!("accepted {accepted}, dropped {by_reason:?}, delivered {}", rx.delivered().len());
    // Behind the commit point: exactly the accepted frames, in order, record and payload
    // byte-exact, except those lost for lack of buffer (counted).
    let delivered = rx.delivered().to_vec();
    let mut next = 0;
    let mut lost = 0u64;
    for (e, _) in &expected {
        let (Ok(()), Some(p)) = (&e.verdict, &e.packet) else { continue };
        match delivered.get(next) {
            Some((r, payload)) if headers_match(r, p, false).is_ok() && payload == &p.payload && r.payload_len == p.payload.len() => {
                next += 1
            }
            _ => lost += 1,
        }
    }
    assert_eq!(next, delivered.len(), "delivered frames that were not accepted, or out of order");
    let c = rx.counters();
    assert_eq!(c.no_buffer, lost, "frames lost for buffer");
    if backpressure == 0 {
        assert_eq!(lost, 0);
    }
    if backpressure >= 90 {
        assert!(lost > 20, "the buffer should overflow: {lost} lost");
    }
    assert_eq!(c.accepted, accepted);
    for (reason, n) in c.dropped {
        assert_eq!(n, by_reason.get(&reason).copied().unwrap_or(0), "counter {}", reason.name());
    }
}

#[test]
fn rx_matches_model_without_fcs() {
    run(false, 11, 6000, 0);
}

#[test]
fn rx_matches_model_with_fcs() {
    run(true, 12, 5000, 0);
}

/// The consumer holds ready low on 30 % of cycles: frames back up into the buffer, which
/// drops whole frames when full, never parts of one.
#[test]
fn rx_matches_model_under_backpressure() {
    run(false, 13, 4000, 30);
}

/// Ready low on 90 % of cycles: the buffer fills and many frames are lost, all counted.
#[test]
fn rx_survives_a_slow_consumer() {
    run(true, 14, 2000, 90);
}
