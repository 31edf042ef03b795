//! The committed scapy vectors (`tests/vectors/`, built by `scripts/make-vectors`) and their
//! manifest, for the end-to-end tests.

use std::path::PathBuf;

/// One line of `tests/vectors/manifest.tsv`.
#[derive(Debug, Clone)]
pub struct Vector {
    pub file: PathBuf,
    /// `accepted` or `dropped`.
    pub verdict: String,
    /// Drop reason name, or `-` for accepted frames.
    pub reason: String,
    /// Frames carry their Ethernet FCS.
    pub fcs: bool,
    pub frames: Vec<Vec<u8>>,
}

pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("vectors")
}

/// Every vector file with its frames, in manifest order.
pub fn load() -> Vec<Vector> {
    let manifest = std::fs::read_to_string(dir().join("manifest.tsv")).expect("manifest.tsv");
    manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            assert!(cols.len() >= 5, "manifest line has {} columns: {line}", cols.len());
            let file = dir().join(cols[0]);
            let bytes = std::fs::read(&file).expect("vector file");
            let frames = rnic_sim::pcap::read(&bytes).expect("vector parses");
            assert_eq!(frames.len(), cols[4].parse::<usize>().expect("frame count"), "{line}");
            Vector {
                file,
                verdict: cols[1].to_string(),
                reason: cols[2].to_string(),
                fcs: cols[3] == "fcs",
                frames,
            }
        })
        .collect()
}
