//! The bus a driver reaches the card through: BAR0 register access. Two implementations: the
//! simulated card (`crate::sim_bus`) and, later, VFIO through `pci-driver` (whose device
//! traits are sealed, hence this trait). DMA buffer allocation and IOVA mapping join it with
//! the DMA engine.

/// Why a register access failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusError {
    /// The card did not answer (simulated: a hardware bug; real: the link is down).
    Timeout { offset: u32, write: bool },
    /// The offset is outside BAR0 or not 4-byte aligned.
    BadOffset(u32),
}

impl std::fmt::Display for BusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BusError::Timeout { offset, write } => {
                write!(f, "BAR0 {} at {offset:#06x} got no answer", if *write { "write" } else { "read" })
            }
            BusError::BadOffset(o) => write!(f, "BAR0 offset {o:#x} is not an aligned register offset"),
        }
    }
}

impl std::error::Error for BusError {}

pub trait Bus {
    /// Read the 32-bit register at byte `offset` of BAR0.
    fn read32(&mut self, offset: u32) -> Result<u32, BusError>;
    /// Write the 32-bit register at byte `offset` of BAR0.
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError>;
}

/// Checks an offset against BAR0's size and alignment.
pub fn check_offset(offset: u32) -> Result<(), BusError> {
    if !offset.is_multiple_of(4) || offset >= 1 << rnic_spec::regs::BAR0_ADDR_BITS {
        return Err(BusError::BadOffset(offset));
    }
    Ok(())
}
