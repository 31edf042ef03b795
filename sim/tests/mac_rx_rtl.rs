//! RTL MAC receive stage (hdl/src/mac/rx.rs) in Verilator against the spec: random frames of
//! 1..=300 bytes with and without FCS, half with a corrupted byte, random idle cycles, back to
//! back. Every frame must come out without its FCS, with the right length, runt and FCS flags.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_sim::axis::beats;
use rnic_sim::Model;
use rnic_spec::wire::{fcs, MIN_FRAME_NO_FCS};

#[derive(Debug, PartialEq, Eq)]
struct Out {
    bytes: Vec<u8>,
    len: usize,
    runt: bool,
    bad_fcs: bool,
    user: bool,
}

fn run(fcs_enable: bool, seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut m = Model::new("rnic_mac_rx").unwrap();
    let p = |m: &Model, n: &str| m.port(n).unwrap();
    let (iv, id, ik, il, iu) = (p(&m, "in_valid"), p(&m, "in_data"), p(&m, "in_keep"), p(&m, "in_last"), p(&m, "in_user"));
    let (ov, od, oc, ol, ou) = (p(&m, "out_valid"), p(&m, "out_data"), p(&m, "out_count"), p(&m, "out_last"), p(&m, "out_user"));
    let (orunt, ofcs, olen) = (p(&m, "out_runt"), p(&m, "out_bad_fcs"), p(&m, "out_len"));
    let fe = p(&m, "fcs_enable");
    m.set(fe, fcs_enable as u64);

    let mut expected = Vec::new();
    let mut got = Vec::new();
    let mut cur = Vec::new();
    let collect = |m: &Model, got: &mut Vec<Out>, cur: &mut Vec<u8>| {
        if m.get(ov) == 1 {
            let n = m.get(oc) as usize;
            assert!((1..=64).contains(&n), "count {n}");
            cur.extend_from_slice(&m.get_bytes(od)[..n]);
            if m.get(ol) == 1 {
                got.push(Out {
                    bytes: std::mem::take(cur),
                    len: m.get(olen) as usize,
                    runt: m.get(orunt) == 1,
                    bad_fcs: m.get(ofcs) == 1,
                    user: m.get(ou) == 1,
                });
            }
        }
    };
    for _ in 0..4000 {
        let len: usize = match rng.gen_range(0..4) {
            0 => rng.gen_range(1..80),
            1 => rng.gen_range(120..136), // tail beats of 0..8 bytes
            _ => rng.gen_range(1..300),
        };
        let mut frame: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let corrupt = rng.gen_bool(0.3);
        let body_len = if fcs_enable { len.saturating_sub(4) } else { len };
        if fcs_enable && len > 4 {
            let crc = fcs(&frame[..body_len]);
            frame[body_len..].copy_from_slice(&crc.to_le_bytes());
        }
        if corrupt {
            let i = rng.gen_range(0..len);
            frame[i] ^= 1 << rng.gen_range(0..8);
        }
        let min = MIN_FRAME_NO_FCS + if fcs_enable { 4 } else { 0 };
        let runt = len < min;
        let fcs_ok = !fcs_enable || rnic_spec::wire::crc::crc32_update(0xFFFF_FFFF, &frame) == rnic_spec::wire::crc::RESIDUE;
        // A frame shorter than its FCS keeps one byte: it is a runt either way.
        let kept = if body_len == 0 { 1 } else { body_len };
        expected.push(Out {
            bytes: frame[..kept].to_vec(),
            len: len - if fcs_enable { 4.min(len) } else { 0 },
            runt,
            bad_fcs: !fcs_ok,
            user: runt || !fcs_ok,
        });
        for b in beats(&frame) {
            while rng.gen_bool(0.1) {
                m.set(iv, 0);
                m.tick();
                collect(&m, &mut got, &mut cur);
            }
            m.set(iv, 1);
            m.set_bytes(id, &b.data);
            m.set(ik, b.keep);
            m.set(il, b.last as u64);
            m.set(iu, 0);
            m.tick();
            collect(&m, &mut got, &mut cur);
        }
    }
    m.set(iv, 0);
    for _ in 0..10 {
        m.tick();
        collect(&m, &mut got, &mut cur);
    }
    assert_eq!(got.len(), expected.len());
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        // Runts shorter than the FCS: only the flags matter.
        if e.len == 0 {
            assert!(g.runt && g.user, "frame {i}");
            continue;
        }
        assert_eq!(g, e, "frame {i} (fcs_enable {fcs_enable})");
    }
}

#[test]
fn mac_rx_strips_and_checks_fcs() {
    run(true, 1);
}

#[test]
fn mac_rx_without_fcs_passes_frames() {
    run(false, 2);
}
