//! The soft MAC: FCS check and strip, runt detection.

pub mod rx;
