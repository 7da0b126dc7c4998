//! The Scheduler: takes the limits a job asks for (`crate::job_limits`), scales them to
//! what a host has free (`placement`), and holds work in the queue while every host is full.

pub(crate) mod actor;
pub(crate) mod placement;
