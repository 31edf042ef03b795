//! RTL memory-region table (hdl/src/dma/mr_table.rs) in Verilator against the spec's access
//! check (`rnic_spec::mr::check`): a random table, then one check per cycle of keys that hit,
//! miss, are stale, come from another PD, lack access, or straddle a region's ends by a byte;
//! and its same-cycle `fast_*` port against a model of its one-region cache, with table
//! writes racing the checks that fill it.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_sim::Model;
use rnic_spec::mr::{check, slot, MemoryRegion};

const SLOTS: usize = 256;
const LATENCY: u64 = 3;

fn p(m: &Model, n: &str) -> rnic_sim::Port {
    m.port(n).unwrap()
}

/// A random region for slot `s` (about two thirds of the time; some end right at 2^64).
fn random_region(rng: &mut SmallRng, s: usize) -> Option<MemoryRegion> {
    rng.gen_bool(0.66).then(|| {
        let length = if rng.gen_bool(0.1) { u32::MAX } else { rng.gen_range(1..1 << 20) };
        let base = if rng.gen_bool(0.05) { u64::MAX - length as u64 + 1 } else { rng.gen::<u64>() >> rng.gen_range(0..40) };
        MemoryRegion { key: (rng.gen::<u32>() & !0xFF) | s as u32, base, length, access: rng.gen_range(0..16), pd: rng.gen_range(0..4) }
    })
}

/// Drive the `cfg_*` port to write `mr` (None: an invalid entry) into slot `s` at the next edge.
fn set_slot(m: &mut Model, rng: &mut SmallRng, s: usize, mr: Option<MemoryRegion>) {
    let cfg = ["cfg_wr", "cfg_slot", "cfg_valid", "cfg_key", "cfg_base", "cfg_length", "cfg_access", "cfg_pd"].map(|n| p(m, n));
    let e = mr.unwrap_or(MemoryRegion { key: rng.gen(), base: rng.gen(), length: rng.gen(), access: 15, pd: 0 });
    for (port, v) in cfg.iter().zip([1, s as u64, mr.is_some() as u64, e.key as u64, e.base, e.length as u64, e.access as u64, e.pd as u64]) {
        m.set(*port, v);
    }
}

/// A model whose every slot holds a random region or none.
fn random_table(m: &mut Model, rng: &mut SmallRng) -> Vec<Option<MemoryRegion>> {
    let table: Vec<Option<MemoryRegion>> = (0..SLOTS).map(|s| random_region(rng, s)).collect();
    for (s, mr) in table.iter().enumerate() {
        set_slot(m, rng, s, *mr);
        m.tick();
    }
    m.set(p(m, "cfg_wr"), 0);
    table
}

/// A check of `mr` (or of slot `s`'s key when it is empty): hits, stale keys, other PDs, too
/// little access, ranges straddling either end.
fn random_check(rng: &mut SmallRng, s: usize, mr: Option<MemoryRegion>) -> (u32, u16, u64, u32, u8) {
    let mr = mr.unwrap_or(MemoryRegion { key: s as u32, base: 0, length: 1, access: 0, pd: 0 });
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
    (key, pd, addr, len, need)
}

/// [addr, addr + len) lies inside `mr` (sums wider than 64 bits, as the RTL's).
fn inside(mr: &MemoryRegion, addr: u64, len: u32) -> bool {
    addr >= mr.base && addr as u128 + len as u128 <= mr.base as u128 + mr.length as u128
}

#[test]
fn mr_table_matches_spec() {
    let mut rng = SmallRng::seed_from_u64(0x3e3);
    let mut m = Model::new("rnic_mr_table").unwrap();
    let table = random_table(&mut m, &mut rng);

    let chk = ["chk_valid", "chk_key", "chk_pd", "chk_addr", "chk_len", "chk_need", "chk_tag"].map(|n| p(&m, n));
    let (rv, re, rt) = (p(&m, "res_valid"), p(&m, "res_error"), p(&m, "res_tag"));
    let n = 20_000u64;
    let mut expected = std::collections::VecDeque::new();
    let mut counts = [0usize; 5];
    for i in 0..n + LATENCY + 1 {
        if i < n {
            let s = rng.gen_range(0..SLOTS);
            let (key, pd, addr, len, need) = random_check(&mut rng, s, table[s]);
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

/// The fast port against a model of its cache: per value of a key's low bits, the region of
/// the last check under such a key that passed with a nonzero length and that no table write
/// overtook (none in its issue cycle or the next), emptied by a write to a slot with
/// those bits. Each cycle a fast query (mostly near a cached region) must hit exactly when the
/// model says, and a hit's PD and access must be the region's as the table holds it.
#[test]
fn fast_checks_answer_from_the_last_region_admitted() {
    let mut rng = SmallRng::seed_from_u64(0xfa57);
    let mut m = Model::new("rnic_mr_table").unwrap();
    let mut table = random_table(&mut m, &mut rng);
    let chk = ["chk_valid", "chk_key", "chk_pd", "chk_addr", "chk_len", "chk_need", "chk_tag"].map(|n| p(&m, n));
    let fast = ["fast_key", "fast_addr", "fast_len"].map(|n| p(&m, n));
    let (rv, hit, fpd, facc) = (p(&m, "res_valid"), p(&m, "fast_hit"), p(&m, "fast_pd"), p(&m, "fast_access"));
    const CACHED: usize = rnic_hdl::dma::mr_table::CACHED;
    let mut cache: [Option<MemoryRegion>; CACHED] = [None; CACHED];
    let entry = |key: u32| key as usize % CACHED;
    let mut in_flight = std::collections::VecDeque::new();
    let mut last_write = None;
    let (mut hits, mut misses_near, mut writes) = (0, 0, 0);
    let re = p(&m, "res_error");
    for i in 0..40_000u64 {
        // A table write now and then (often to the cached region's slot).
        let write = rng.gen_bool(0.01);
        let near = cache[rng.gen_range(0..CACHED)];
        let mut written = None;
        if write {
            let s = match near {
                Some(r) if rng.gen_bool(0.5) => r.key as usize % SLOTS,
                _ => rng.gen_range(0..SLOTS),
            };
            written = Some(s);
            table[s] = random_region(&mut rng, s);
            set_slot(&mut m, &mut rng, s, table[s]);
            writes += 1;
        } else {
            m.set(p(&m, "cfg_wr"), 0);
        }
        // A check in most cycles: of the cached region's slot or any.
        if rng.gen_bool(0.7) {
            let s = match near {
                Some(r) if rng.gen_bool(0.3) => r.key as usize % SLOTS,
                _ => rng.gen_range(0..SLOTS),
            };
            let (key, pd, addr, len, need) = random_check(&mut rng, s, table[s]);
            let ok = rnic_spec::mr::check(&table, key, pd, addr, len, need).is_ok();
            in_flight.push_back((i, ok && len > 0, table[slot(key, SLOTS)]));
            for (port, v) in chk.iter().zip([1, key as u64, pd as u64, addr, len as u64, need as u64, 0]) {
                m.set(*port, v);
            }
        } else {
            m.set(chk[0], 0);
        }
        // The fast query: around the cached region, or a random check's.
        let (key, addr, len) = match near {
            Some(r) if rng.gen_bool(0.8) => {
                let key = if rng.gen_bool(0.9) { r.key } else { r.key ^ (1 << rng.gen_range(0..32)) };
                let (addr, len) = match rng.gen_range(0..4) {
                    0 => (r.base.wrapping_add(rng.gen_range(0..r.length as u64)), rng.gen_range(0..4096)),
                    1 => (r.base.wrapping_sub(rng.gen_range(0..2)), rng.gen_range(0..64)),
                    2 => (r.base, r.length.wrapping_add(rng.gen_range(0..2))),
                    _ => (r.base.wrapping_add(r.length as u64).wrapping_sub(rng.gen_range(0..64)), rng.gen_range(0..128)),
                };
                (key, addr, len)
            }
            _ => {
                let s = rng.gen_range(0..SLOTS);
                let (key, _, addr, len, _) = random_check(&mut rng, s, table[s]);
                (key, addr, len)
            }
        };
        for (port, v) in fast.iter().zip([key as u64, addr, len as u64]) {
            m.set(*port, v);
        }
        m.settle();
        let cached = cache[entry(key)];
        let want = !write && cached.is_some_and(|r| r.key == key && inside(&r, addr, len));
        assert_eq!(m.get(hit) == 1, want, "cycle {i}: fast check {key:#x} {addr:#x}+{len} against {cached:x?} (the model says hit: {want})");
        if want {
            let r = cached.expect("hit");
            assert_eq!((m.get(fpd), m.get(facc)), (r.pd as u64, r.access as u64), "cycle {i}: the region's PD and access");
            hits += 1;
        } else if cached.is_some_and(|r| r.key == key) {
            misses_near += 1;
        }
        m.tick();
        // A verdict visible after this edge was issued two edges before; it fills its entry
        // unless a write came in its issue cycle or the next (its RAM read may be stale). A
        // write at this edge empties the entry of its slot's low bits (after any fill).
        if m.get(rv) == 1 {
            let (issued, filled, region) = in_flight.pop_front().expect("a check in flight");
            assert_eq!(i - issued, 2, "fixed latency");
            assert!(!filled || m.get(re) == 0 || last_write.is_some_and(|w| w >= issued), "cycle {i}: a check the table passes");
            if filled && last_write.is_none_or(|w| w < issued) {
                let r = region.expect("a passed check has its region");
                cache[entry(r.key)] = region;
            }
        }
        if let Some(s) = written {
            cache[s % CACHED] = None;
            last_write = Some(i);
        }
    }
    assert!(hits > 5_000 && misses_near > 1_000 && writes > 200, "hits {hits}, misses near the region {misses_near}, writes {writes}");
}
