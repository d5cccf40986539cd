//! Time management: how long to think on one move, from the clock that USI
//! `go` reports. Pure arithmetic, so that every rule is unit-tested.
//!
//! The result is a [`TimeBudget`]: the search stops starting iterations
//! after the soft limit (`optimum`, which the search scales by the
//! stability of its best move) and stops outright at the hard limit
//! (`maximum`).
//!
//! The rules, in the order they apply:
//! - Everything this move may spend without losing on time is the main time
//!   left plus the byoyomi, minus `NetworkDelay` (the GUI's and the
//!   network's share). Without byoyomi a reserve is kept for the moves to
//!   come, so that sudden death never flags.
//! - The main time is shared among the moves still expected; the byoyomi
//!   and the increment come on top (they are renewed every move).
//! - Byoyomi that is not used is lost: the soft limit never falls below it.
//! - `MinimumThinkingTime` raises both limits (within what may be spent).
//! - Tournament servers count whole seconds and drop the fraction: when
//!   every clock value is a whole number of seconds, the limits are
//!   stretched to just before the next whole second (minus the delay).

use std::time::Duration;

/// How much time the search may use, decided by the time manager.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// Never stop before this (time that would be lost anyway, such as
    /// byoyomi, or `MinimumThinkingTime`), unless the result is certain.
    pub minimum: Duration,
    /// Stop starting new iterations after this (scaled by stability).
    pub optimum: Duration,
    /// Never think longer than this.
    pub maximum: Duration,
}

/// Our moves expected to follow at the start of a game; the main time is
/// shared among them.
const MOVES_TO_GO_AT_START: u32 = 50;
/// The estimate of moves to go never drops below this (games can last).
const MIN_MOVES_TO_GO: u32 = 20;
/// The hard limit is at most this many soft limits: room to think longer
/// when the best move keeps changing.
const MAXIMUM_OVER_OPTIMUM: u32 = 3;
/// Sudden death: one move never takes more than this share of the clock.
const SUDDEN_DEATH_MAX_SHARE: u32 = 4;

/// The clock of the side to move, as `go` gives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Main time left (`btime`/`wtime`); per USI it already includes this
    /// move's increment.
    pub remaining: Duration,
    /// Fischer increment per move (`binc`/`winc`).
    pub increment: Duration,
    /// Byoyomi per move once the main time is gone.
    pub byoyomi: Duration,
}

/// The time-related engine options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeSettings {
    /// Kept back per move for the GUI, the pipe and the network
    /// (`NetworkDelay`).
    pub network_delay: Duration,
    /// Think at least this long when the clock allows (`MinimumThinkingTime`).
    pub minimum_thinking: Duration,
}

impl Clock {
    /// Whether every value is a whole number of seconds (and some is not
    /// zero): the sign of a server that counts whole seconds.
    fn counts_whole_seconds(&self) -> bool {
        let values = [self.remaining, self.increment, self.byoyomi];
        values.iter().all(|d| d.as_millis() % 1000 == 0) && values.iter().any(|d| !d.is_zero())
    }
}

/// Our moves still expected at `game_ply` (the SFEN move number).
fn moves_to_go(game_ply: u32) -> u32 {
    MOVES_TO_GO_AT_START
        .saturating_sub(game_ply / 4)
        .max(MIN_MOVES_TO_GO)
}

/// The most this move may take without losing on time.
fn spendable(clock: &Clock, settings: &TimeSettings) -> Duration {
    let delay = settings.network_delay;
    if !clock.byoyomi.is_zero() {
        return (clock.remaining + clock.byoyomi).saturating_sub(delay);
    }
    // No byoyomi: what this move does not use must carry the rest of the
    // game. With an increment, the next move brings its own.
    let reserve_share = if clock.increment.is_zero() {
        clock.remaining / SUDDEN_DEATH_MAX_SHARE
    } else {
        clock.remaining / SUDDEN_DEATH_MAX_SHARE + clock.increment
    };
    reserve_share.min(clock.remaining.saturating_sub(delay))
}

/// Stretches `t` to end just before the next whole second as the server
/// sees it (our time plus the delay), never beyond `cap`.
fn round_up_to_second(t: Duration, delay: Duration, cap: Duration) -> Duration {
    let seen_ms = (t + delay).as_millis() as u64;
    let next_second = seen_ms.div_ceil(1000).max(1) * 1000;
    Duration::from_millis(next_second)
        .saturating_sub(delay)
        .max(t)
        .min(cap)
}

/// The budget for one move under `clock` at `game_ply`.
pub fn budget_for_clock(clock: &Clock, settings: &TimeSettings, game_ply: u32) -> TimeBudget {
    let cap = spendable(clock, settings);
    let share = clock.remaining / moves_to_go(game_ply) + clock.increment + clock.byoyomi;
    // The byoyomi is lost if unused; the minimum thinking time is asked for.
    let floor = clock
        .byoyomi
        .saturating_sub(settings.network_delay)
        .max(settings.minimum_thinking)
        .min(cap);
    let mut maximum = (share * MAXIMUM_OVER_OPTIMUM).max(floor).min(cap);
    let mut optimum = share.min(maximum);
    if clock.counts_whole_seconds() {
        maximum = round_up_to_second(maximum, settings.network_delay, cap);
        optimum = round_up_to_second(optimum, settings.network_delay, maximum);
    }
    TimeBudget {
        minimum: floor,
        optimum,
        maximum,
    }
}

/// The budget for `go movetime`: all of it, less the delay.
pub fn budget_for_movetime(movetime: Duration, settings: &TimeSettings) -> TimeBudget {
    let maximum = movetime.saturating_sub(settings.network_delay);
    // The search uses the whole move time.
    TimeBudget {
        minimum: maximum,
        optimum: maximum,
        maximum,
    }
}

/// What is left of `budget` once `spent` has gone by before the search
/// could start.
pub fn remaining_budget(budget: TimeBudget, spent: Duration) -> TimeBudget {
    TimeBudget {
        minimum: budget.minimum.saturating_sub(spent),
        optimum: budget.optimum.saturating_sub(spent),
        maximum: budget.maximum.saturating_sub(spent),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn settings(delay: u64) -> TimeSettings {
        TimeSettings {
            network_delay: ms(delay),
            minimum_thinking: Duration::ZERO,
        }
    }

    fn clock(remaining: u64, increment: u64, byoyomi: u64) -> Clock {
        Clock {
            remaining: ms(remaining),
            increment: ms(increment),
            byoyomi: ms(byoyomi),
        }
    }

    /// The least the search will think: the soft limit of a stable best
    /// move, or the minimum.
    fn soft_when_stable(b: &TimeBudget) -> Duration {
        b.optimum.mul_f64(0.6).max(b.minimum)
    }

    #[test]
    fn byoyomi_only_uses_the_whole_byoyomi_less_the_delay() {
        let b = budget_for_clock(&clock(0, 0, 100), &settings(50), 80);
        assert_eq!(b.maximum, ms(50));
        assert!(soft_when_stable(&b) >= b.maximum, "{b:?}");
    }

    #[test]
    fn byoyomi_shorter_than_the_delay_means_move_at_once() {
        let b = budget_for_clock(&clock(0, 0, 40), &settings(50), 80);
        assert_eq!(b.maximum, Duration::ZERO);
    }

    #[test]
    fn main_time_adds_to_the_byoyomi_but_never_past_it() {
        let c = clock(3_000, 0, 200);
        let b = budget_for_clock(&c, &settings(50), 1);
        assert!(b.optimum > ms(200), "{b:?}");
        assert!(b.maximum <= ms(3_150), "{b:?}");
        assert!(b.optimum <= b.maximum && b.minimum <= b.maximum);
    }

    #[test]
    fn long_main_time_thinks_longer_than_the_byoyomi_alone() {
        let with_main = budget_for_clock(&clock(600_000, 0, 10_000), &settings(100), 1);
        let without = budget_for_clock(&clock(0, 0, 10_000), &settings(100), 1);
        assert!(with_main.maximum > without.maximum);
        assert!(with_main.optimum > ms(10_000));
    }

    #[test]
    fn sudden_death_never_flags() {
        for remaining in [0, 1, 10, 49, 50, 51, 300, 1_000, 60_000] {
            let c = clock(remaining, 0, 0);
            let b = budget_for_clock(&c, &settings(50), 100);
            assert!(
                b.maximum <= ms(remaining).saturating_sub(ms(50)),
                "{remaining}: {b:?}"
            );
            assert!(
                b.maximum <= ms(remaining) / SUDDEN_DEATH_MAX_SHARE,
                "{remaining}: {b:?}"
            );
        }
    }

    #[test]
    fn sudden_death_simulated_game_keeps_time() {
        // Spend the whole hard limit on every move for 300 moves.
        let mut left = ms(10_000);
        for ply in 0..300 {
            let b = budget_for_clock(
                &Clock {
                    remaining: left,
                    ..Clock::default()
                },
                &settings(50),
                ply,
            );
            let spent = b.maximum + ms(50);
            assert!(
                spent <= left || b.maximum.is_zero(),
                "ply {ply}: {b:?} with {left:?}"
            );
            left = left.saturating_sub(spent);
        }
    }

    #[test]
    fn fischer_spends_the_increment_but_keeps_the_rest() {
        let b = budget_for_clock(&clock(2_000, 500, 0), &settings(50), 30);
        assert!(b.maximum <= ms(1_950), "{b:?}");
        assert!(b.maximum >= ms(500), "{b:?}");
        assert!(b.optimum >= ms(400), "{b:?}");
    }

    #[test]
    fn whole_second_clocks_use_the_fraction() {
        let d = settings(100);
        let b = budget_for_clock(&clock(60_000, 0, 10_000), &d, 1);
        assert_eq!((b.maximum.as_millis() + 100) % 1000, 0, "{b:?}");
        // Not whole seconds: no rounding.
        let b = budget_for_clock(&clock(60_001, 0, 10_000), &d, 1);
        assert_ne!((b.maximum.as_millis() + 100) % 1000, 0, "{b:?}");
    }

    #[test]
    fn rounding_never_exceeds_what_may_be_spent() {
        let b = budget_for_clock(&clock(2_000, 0, 0), &settings(100), 1);
        assert!(b.maximum <= ms(500), "{b:?}");
        assert_eq!(round_up_to_second(ms(1), ms(100), ms(5_000)), ms(900));
        assert_eq!(round_up_to_second(ms(900), ms(100), ms(5_000)), ms(900));
        assert_eq!(round_up_to_second(ms(901), ms(100), ms(5_000)), ms(1_900));
        assert_eq!(round_up_to_second(ms(901), ms(100), ms(1_000)), ms(1_000));
    }

    #[test]
    fn minimum_thinking_time_within_the_clock() {
        let s = TimeSettings {
            network_delay: ms(50),
            minimum_thinking: ms(2_000),
        };
        let b = budget_for_clock(&clock(600_000, 0, 0), &s, 1);
        assert!(
            b.maximum >= ms(2_000) && soft_when_stable(&b) >= ms(2_000),
            "{b:?}"
        );
        let b = budget_for_clock(&clock(0, 0, 500), &s, 1);
        assert_eq!(b.maximum, ms(450));
    }

    #[test]
    fn movetime_uses_all_of_it() {
        let b = budget_for_movetime(ms(1_000), &settings(50));
        assert_eq!(b.maximum, ms(950));
        assert!(soft_when_stable(&b) >= b.maximum);
        assert_eq!(budget_for_movetime(ms(10), &settings(50)).maximum, ms(0));
    }

    #[test]
    fn time_already_spent_comes_off_both_limits() {
        let b = budget_for_movetime(ms(1_000), &settings(0));
        let left = remaining_budget(b, ms(30));
        assert_eq!(left.maximum, ms(970));
        assert_eq!(remaining_budget(b, ms(5_000)).maximum, Duration::ZERO);
    }

    #[test]
    fn later_in_the_game_the_share_grows() {
        let c = clock(300_000, 0, 0);
        let early = budget_for_clock(&c, &settings(50), 1);
        let late = budget_for_clock(&c, &settings(50), 150);
        assert!(late.optimum > early.optimum);
    }
}
