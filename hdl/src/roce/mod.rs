//! RoCE v2 transport: ICRC, BTH and extended-header parsing, the receive pipeline.

pub mod ack_queue;
pub mod atomic;
pub mod completer;
pub mod icrc;
pub mod qp_table;
pub mod read_history;
pub mod read_table;
pub mod recv_prefetch;
pub mod requester;
pub mod responder;
pub mod response_tx;
pub mod retry_timer;
pub mod rx;
pub mod rx_align;
pub mod rx_buffer;
pub mod rx_host;
pub mod rx_parse;
pub mod rx_record;
pub mod tx;
pub mod tx_header;
