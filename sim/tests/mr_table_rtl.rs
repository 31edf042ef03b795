//! RTL memory-region table (hdl/src/dma/mr_table.rs) in Verilator against the spec's access
//! check (`rnic_spec::mr::check`): a random table, then one check per cycle of keys that hit,
//! miss, are stale, come from another PD, lack access, or straddle a region's ends by a byte.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_sim::Model;
use rnic_spec::mr::{check, slot, MemoryRegion};

const SLOTS: usize = 256;
const LATENCY: u64 = 3;

#[test]
fn mr_table_matches_spec() {
    let mut rng = SmallRng::seed_from_u64(0x3e3);
    let mut m = Model::new("rnic_mr_table").unwrap();
    let p = |m: &Model, n: &str| m.port(n).unwrap();
    let mut table: Vec<Option<MemoryRegion>> = vec![None; SLOTS];

    // Fill about two thirds of the slots; some regions end right at 2^64.
    let cfg = ["cfg_wr", "cfg_slot", "cfg_valid", "cfg_key", "cfg_base", "cfg_length", "cfg_access", "cfg_pd"].map(|n| p(&m, n));
    for (s, entry) in table.iter_mut().enumerate() {
        let mr = rng.gen_bool(0.66).then(|| {
            let length = if rng.gen_bool(0.1) { u32::MAX } else { rng.gen_range(1..1 << 20) };
            let base = if rng.gen_bool(0.05) { u64::MAX - length as u64 + 1 } else { rng.gen::<u64>() >> rng.gen_range(0..40) };
            MemoryRegion { key: (rng.gen::<u32>() & !0xFF) | s as u32, base, length, access: rng.gen_range(0..16), pd: rng.gen_range(0..4) }
        });
        let e = mr.unwrap_or(MemoryRegion { key: rng.gen(), base: rng.gen(), length: rng.gen(), access: 15, pd: 0 });
        for (port, v) in cfg.iter().zip([1, s as u64, mr.is_some() as u64, e.key as u64, e.base, e.length as u64, e.access as u64, e.pd as u64]) {
            m.set(*port, v);
        }
        m.tick();
        *entry = mr;
    }
    m.set(cfg[0], 0);

    let chk = ["chk_valid", "chk_key", "chk_pd", "chk_addr", "chk_len", "chk_need", "chk_tag"].map(|n| p(&m, n));
    let (rv, re, rt) = (p(&m, "res_valid"), p(&m, "res_error"), p(&m, "res_tag"));
    let n = 20_000u64;
    let mut expected = std::collections::VecDeque::new();
    let mut counts = [0usize; 5];
    for i in 0..n + LATENCY + 1 {
        if i < n {
            let s = rng.gen_range(0..SLOTS);
            let mr = table[s].unwrap_or(MemoryRegion { key: s as u32, base: 0, length: 1, access: 0, pd: 0 });
            let key = match rng.gen_range(0..10) {
                0 => mr.key ^ (1 << rng.gen_range(8..32)), // stale
                1 => rng.gen(),
                _ => mr.key,
            };
            let pd = if rng.gen_bool(0.9) { mr.pd } else { rng.gen_range(0..4) };
            let need = if rng.gen_bool(0.8) { mr.access & rng.gen_range(0..16) } else { rng.gen_range(0..16) };
            let (addr, len) = match rng.gen_range(0..6) {
                0 => (mr.base.wrapping_sub(1), rng.gen_range(1..64)),
                1 => (mr.base.wrapping_add(mr.length as u64).wrapping_sub(rng.gen_range(0..64)), rng.gen_range(1..128)),
                2 => (mr.base, mr.length),
                3 => (mr.base, mr.length.wrapping_add(1)),
                4 => (rng.gen(), if rng.gen_bool(0.2) { 0 } else { rng.gen() }),
                _ => (mr.base.wrapping_add(rng.gen_range(0..mr.length as u64)), rng.gen_range(0..8192)),
            };
            let want = check(&table, key, pd, addr, len, need).err().map_or(0, |e| e as u64);
            counts[want as usize] += 1;
            expected.push_back((i, want, (key, pd, addr, len, need)));
            for (port, v) in chk.iter().zip([1, key as u64, pd as u64, addr, len as u64, need as u64, i & 0xFFFF]) {
                m.set(*port, v);
            }
        } else {
            m.set(chk[0], 0);
        }
        m.tick();
        if m.get(rv) == 1 {
            let (issued, want, req) = expected.pop_front().expect("a check is in flight");
            assert_eq!(m.get(rt), issued & 0xFFFF, "verdicts in order");
            // Inputs set before edge `issued`, verdict seen after edge `issued + LATENCY - 1`.
            assert_eq!(i - issued, LATENCY - 1, "fixed latency");
            assert_eq!(m.get(re), want, "check {req:x?} (slot {})", slot(req.0, SLOTS));
        }
    }
    assert!(expected.is_empty(), "{} checks without a verdict", expected.len());
    assert!(counts.iter().all(|&c| c > 300), "every outcome exercised: {counts:?}");
}
