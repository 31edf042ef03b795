//! `rnic sim tx`: random packets through the transmit engine's RTL, each frame compared with
//! the reference model (`rnic_spec::wire::tx::TxDescriptor::packet`), optionally captured.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_sim::bench::CLOCK_MHZ;
use rnic_sim::tx::{random_descriptor, TxSim};
use rnic_sim::SimError;
use std::path::Path;

/// What a run produced.
pub struct Report {
    pub packets: usize,
    pub bytes: usize,
    pub cycles: u64,
    /// Frames that differ from the model (index, first differing byte).
    pub mismatches: Vec<(usize, usize)>,
    pub frames: Vec<(u64, Vec<u8>)>,
}

impl Report {
    pub fn summary(&self) -> String {
        format!(
            "{} packets, {} frame bytes in {} cycles ({:.3} µs at {CLOCK_MHZ} MHz); {} differ from the reference model",
            self.packets,
            self.bytes,
            self.cycles,
            self.cycles as f64 / CLOCK_MHZ,
            self.mismatches.len()
        )
    }
}

/// Send `packets` random packets (seeded) of up to `max_payload` bytes through the engine.
pub fn run(packets: usize, max_payload: usize, seed: u64, fcs: bool, trace: Option<&Path>) -> Result<Report, SimError> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut tx = TxSim::new(fcs)?;
    if let Some(t) = trace {
        tx.model().trace(&t.to_string_lossy())?;
    }
    let mut expected = Vec::with_capacity(packets);
    for _ in 0..packets {
        let d = random_descriptor(&mut rng, max_payload);
        let payload: Vec<u8> = (0..d.payload_len).map(|_| rng.gen()).collect();
        let pkt = d.packet(&payload).expect("random descriptors use transmit opcodes");
        expected.push(if fcs { pkt.frame_with_fcs() } else { pkt.frame() });
        tx.queue(d, &payload);
    }
    tx.run_until(packets, 200 * packets as u64 + 10_000);
    let frames: Vec<(u64, Vec<u8>)> =
        tx.frames().iter().map(|(cycle, f)| ((*cycle as f64 * 1000.0 / CLOCK_MHZ) as u64, f.clone())).collect();
    let mismatches = expected
        .iter()
        .zip(&frames)
        .enumerate()
        .filter(|(_, (want, (_, got)))| want != &got)
        .map(|(i, (want, (_, got)))| (i, want.iter().zip(got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()))))
        .collect();
    if frames.len() != packets {
        return Err(SimError::MissingRecords { frames: packets, records: frames.len() });
    }
    Ok(Report {
        packets,
        bytes: frames.iter().map(|(_, f)| f.len()).sum(),
        cycles: tx.cycles(),
        mismatches,
        frames,
    })
}
