//! RTL CRC-32 checker (hdl/src/crc.rs) in Verilator against the spec's CRC: random messages,
//! half of them corrupted, random idle cycles between beats, random starting registers.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::crc::CRC_CHECK_LATENCY;
use rnic_sim::Model;
use rnic_spec::wire::crc::{crc32, crc32_update, INIT, RESIDUE};

struct Dut {
    m: Model,
    valid: rnic_sim::Port,
    first: rnic_sim::Port,
    last: rnic_sim::Port,
    init: rnic_sim::Port,
    data: rnic_sim::Port,
    count: rnic_sim::Port,
    out_valid: rnic_sim::Port,
    out_ok: rnic_sim::Port,
}

impl Dut {
    fn new() -> Dut {
        let m = Model::new("rnic_crc32_check").unwrap();
        let p = |n: &str| m.port(n).unwrap();
        Dut {
            valid: p("in_valid"),
            first: p("in_first"),
            last: p("in_last"),
            init: p("in_init"),
            data: p("in_data"),
            count: p("in_count"),
            out_valid: p("out_valid"),
            out_ok: p("out_ok"),
            m,
        }
    }

    /// Clock one cycle with the given beat (or idle) and collect any verdict.
    fn cycle(&mut self, beat: Option<(&[u8], bool, bool, u32)>, verdicts: &mut Vec<bool>) {
        match beat {
            Some((bytes, first, last, init)) => {
                // Garbage past the valid bytes must not matter.
                let mut data = bytes.to_vec();
                data.resize(64, 0xA5);
                self.m.set(self.valid, 1);
                self.m.set(self.first, first as u64);
                self.m.set(self.last, last as u64);
                self.m.set(self.init, init as u64);
                self.m.set_bytes(self.data, &data);
                self.m.set(self.count, bytes.len() as u64);
            }
            None => {
                self.m.set(self.valid, 0);
                self.m.set_bytes(self.data, &[0x5A; 64]);
            }
        }
        self.m.tick();
        if self.m.get(self.out_valid) == 1 {
            verdicts.push(self.m.get(self.out_ok) == 1);
        }
    }
}

#[test]
fn crc32_check_matches_spec_on_random_messages() {
    let mut rng = SmallRng::seed_from_u64(0x5eed_c0de);
    let mut dut = Dut::new();
    let mut expected = Vec::new();
    let mut verdicts = Vec::new();
    for n in 0..3000 {
        let len = match n % 4 {
            0 => rng.gen_range(1..130),
            1 => rng.gen_range(60..70),
            _ => rng.gen_range(1..1600),
        };
        let init = if rng.gen_bool(0.5) { INIT } else { rng.gen() };
        let mut msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        // Append the CRC that makes the message check, computed from `init`.
        let crc = crc32_update(init, &msg) ^ INIT;
        msg.extend_from_slice(&crc.to_le_bytes());
        if rng.gen_bool(0.5) {
            let i = rng.gen_range(0..msg.len());
            msg[i] ^= 1 << rng.gen_range(0..8);
        }
        expected.push(crc32_update(init, &msg) == RESIDUE);
        let beats: Vec<&[u8]> = msg.chunks(64).collect();
        for (i, b) in beats.iter().enumerate() {
            while rng.gen_bool(0.2) {
                dut.cycle(None, &mut verdicts);
            }
            dut.cycle(Some((b, i == 0, i == beats.len() - 1, init)), &mut verdicts);
        }
    }
    for _ in 0..CRC_CHECK_LATENCY + 2 {
        dut.cycle(None, &mut verdicts);
    }
    assert_eq!(verdicts.len(), expected.len());
    let mismatches = verdicts.iter().zip(&expected).filter(|(a, b)| a != b).count();
    assert_eq!(mismatches, 0, "{mismatches} verdicts differ from the spec CRC");
    assert!(expected.iter().filter(|&&ok| ok).count() > 1000);
    assert!(expected.iter().filter(|&&ok| !ok).count() > 1000);
}

#[test]
fn crc32_check_latency_and_back_to_back() {
    let mut dut = Dut::new();
    let mut verdicts = Vec::new();
    let mut frame = b"123456789".to_vec();
    frame.extend_from_slice(&crc32(b"123456789").to_le_bytes());
    // Three one-beat messages on consecutive cycles: three verdicts, the first exactly
    // CRC_CHECK_LATENCY cycles after its beat.
    for _ in 0..3 {
        dut.cycle(Some((&frame, true, true, INIT)), &mut verdicts);
    }
    let mut cycles = 0;
    while verdicts.is_empty() {
        dut.cycle(None, &mut verdicts);
        cycles += 1;
    }
    assert_eq!(cycles + 3, CRC_CHECK_LATENCY);
    dut.cycle(None, &mut verdicts);
    dut.cycle(None, &mut verdicts);
    assert_eq!(verdicts, vec![true, true, true]);
}
