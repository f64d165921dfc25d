//! The one executor of every workload's clients: threads, barrier start,
//! closed-loop and paced roles, progress, stop, and the merge of what each
//! thread recorded.

pub mod pacer;
pub mod progress;
pub mod stop;
