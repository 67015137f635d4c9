//! Why an exploration of a machine stops without an answer: a program the
//! machines do not cover, or a limit of the exploration.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MachineError {
    #[error("the operational engine does not cover {0}")]
    Unsupported(String),
    #[error("{0}")]
    Program(String),
    #[error("more than {0} machine states: lower the bounds")]
    TooManyStates(usize),
    /// The states held take more memory than [`crate::Options::max_words`].
    #[error("the machine's states take more than {0} words of memory: lower the bounds")]
    TooLarge(usize),
}

impl MachineError {
    /// Whether a limit of the exploration stopped it (the run is inconclusive).
    pub fn is_limit(&self) -> bool {
        matches!(self, MachineError::TooManyStates(_) | MachineError::TooLarge(_))
    }
}
