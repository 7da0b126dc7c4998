//! The Scheduler: turns trust level, assessment and code size into concrete limits, scales
//! them to what a host has free, and holds work in the queue while every host is full.

pub mod actor;
pub mod limits;
pub mod placement;
