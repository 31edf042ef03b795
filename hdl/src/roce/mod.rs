//! RoCE v2 transport: ICRC, BTH and extended-header parsing, the receive pipeline.

pub mod icrc;
