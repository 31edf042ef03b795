//! The bus a driver reaches the card through: BAR0 register access, memory the card reaches by
//! DMA (allocated and mapped at an IOVA the driver chooses), and waiting. Two implementations:
//! the simulated cards (`crate::sim_bus`) and, later, VFIO through `pci-driver` (whose device
//! traits are sealed, hence this trait).

/// Why a bus operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusError {
    /// The card did not answer (simulated: a hardware bug; real: the link is down).
    Timeout { offset: u32, write: bool },
    /// The offset is outside BAR0 or not 4-byte aligned.
    BadOffset(u32),
    /// No DMA memory of that size and alignment could be had.
    NoDmaMemory { len: usize, align: usize },
    /// The range is not inside memory this bus allocated for DMA.
    NotDmaMemory { iova: u64, len: usize },
}

impl std::fmt::Display for BusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BusError::Timeout { offset, write } => {
                write!(f, "BAR0 {} at {offset:#06x} got no answer", if *write { "write" } else { "read" })
            }
            BusError::BadOffset(o) => write!(f, "BAR0 offset {o:#x} is not an aligned register offset"),
            BusError::NoDmaMemory { len, align } => {
                write!(f, "cannot allocate {len} bytes of DMA memory aligned to {align}: use a smaller buffer")
            }
            BusError::NotDmaMemory { iova, len } => {
                write!(f, "{len} bytes at IOVA {iova:#x} are not inside allocated DMA memory")
            }
        }
    }
}

impl std::error::Error for BusError {}

pub trait Bus {
    /// Read the 32-bit register at byte `offset` of BAR0.
    fn read32(&mut self, offset: u32) -> Result<u32, BusError>;
    /// Write the 32-bit register at byte `offset` of BAR0.
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError>;
    /// Allocate `len` zeroed bytes the card can reach by DMA, aligned to `align` (a power of
    /// two, at most 4096); returns their IOVA.
    fn dma_alloc(&mut self, len: usize, align: usize) -> Result<u64, BusError>;
    /// Write bytes of DMA memory (as the CPU does).
    fn dma_write(&mut self, iova: u64, data: &[u8]) -> Result<(), BusError>;
    /// Read bytes of DMA memory.
    fn dma_read(&mut self, iova: u64, len: usize) -> Result<Vec<u8>, BusError>;
    /// Let `cycles` cycles of the card's 250 MHz core clock pass.
    fn wait(&mut self, cycles: u64);
}

/// Checks an offset against BAR0's size and alignment.
pub fn check_offset(offset: u32) -> Result<(), BusError> {
    if !offset.is_multiple_of(4) || offset >= 1 << rnic_spec::regs::BAR0_ADDR_BITS {
        return Err(BusError::BadOffset(offset));
    }
    Ok(())
}

/// IOVA bookkeeping for a bus that maps DMA memory where it likes: allocations are carved
/// upwards from a base, page-separated, and every CPU access is checked against them.
#[derive(Debug, Clone)]
pub struct IovaSpace {
    next: u64,
    end: u64,
    allocs: Vec<(u64, usize)>,
}

const PAGE: u64 = 4096;

impl IovaSpace {
    pub fn new(base: u64, size: u64) -> IovaSpace {
        IovaSpace { next: base, end: base + size, allocs: Vec::new() }
    }

    pub fn alloc(&mut self, len: usize, align: usize) -> Result<u64, BusError> {
        if len == 0 || !align.is_power_of_two() || align as u64 > PAGE {
            return Err(BusError::NoDmaMemory { len, align });
        }
        let iova = self.next.next_multiple_of(align as u64);
        let end = iova.checked_add(len as u64).filter(|&e| e <= self.end).ok_or(BusError::NoDmaMemory { len, align })?;
        // A guard page between allocations: a DMA overrun lands in memory nobody owns.
        self.next = end.next_multiple_of(PAGE) + PAGE;
        self.allocs.push((iova, len));
        Ok(iova)
    }

    /// Ok if `[iova, iova + len)` lies inside one allocation.
    pub fn check(&self, iova: u64, len: usize) -> Result<(), BusError> {
        let inside = self.allocs.iter().any(|&(a, l)| iova >= a && (iova - a).checked_add(len as u64).is_some_and(|e| e <= l as u64));
        if inside {
            Ok(())
        } else {
            Err(BusError::NotDmaMemory { iova, len })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iova_space_aligns_separates_and_checks() {
        let mut s = IovaSpace::new(0x1000_0000, 1 << 20);
        let a = s.alloc(100, 64).unwrap();
        let b = s.alloc(4096, 4096).unwrap();
        assert_eq!(a % 64, 0);
        assert!(b >= a + 100 + PAGE && b.is_multiple_of(4096), "a guard page between allocations");
        assert!(s.check(a, 100).is_ok() && s.check(a + 99, 1).is_ok());
        assert!(s.check(a + 99, 2).is_err() && s.check(a - 1, 1).is_err());
        assert!(s.alloc(2 << 20, 64).is_err());
        assert!(s.alloc(64, 3).is_err());
    }
}
