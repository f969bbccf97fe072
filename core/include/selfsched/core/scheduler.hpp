// Sequential reference semantics: a master handing out chunks one request at
// a time (seed 002, sec. 2). Every concurrent binding must produce the same
// chunks for the same request order.
#pragma once

#include <string>

#include "selfsched/core/spec.hpp"
#include "selfsched/core/technique.hpp"

namespace selfsched {

// Checks n, p, thresholds and powers. Returns "" or one line naming the bad
// value (e.g. "weight 3 is -1: weights must be finite and > 0").
std::string validate(const loop_params& lp);

// Puts the spec's ",k" where its technique reads it: the chunk of css, the
// minimum chunk of every other technique.
void apply_chunk(const schedule_spec& spec, loop_params& lp);

// The technique named by `spec`, wrapped in the mechanisms the spec asks for
// (alpha, then W). `lp` must be valid.
technique_ptr make_schedule(const schedule_spec& spec, const loop_params& lp);

// Does the chunk sequence depend only on (n, p, params)? Then a chunk_plan
// can serve it with one fetch-and-add per claim.
bool is_fixed(const schedule_spec& spec);

// Does a chunk depend on who asks, through the asker's power A_k = VP_k / Q_k
// (mechanism W, or a weighted technique: seed 000 eq. 2)? Then a binding
// measures each thread's run queue Q_k.
bool weighs_askers(const schedule_spec& spec);

// The rule every binding applies to what a technique asks for: at least
// min_chunk, at most max_chunk (if set), never more than what remains, never 0.
iter_t clamp_chunk(iter_t wanted, iter_t remaining, const loop_params& lp);

// VP_k normalised so the fastest worker has 1 (seed 000 uses VP = 1 for the
// fastest machine type). 1 when no powers are given.
double relative_power(const loop_params& lp, int worker);

class scheduler {
 public:
  scheduler(technique_ptr t, loop_params lp);
  scheduler(const schedule_spec& spec, loop_params lp)
      : scheduler(make_schedule(spec, lp), lp) {}

  // The next chunk for `worker`, whose core has `queue` runnable tasks.
  // size == 0 when the loop is exhausted.
  chunk next(int worker, double queue = 1.0);

  // Feed an adaptive technique: `worker` ran `size` iterations in `seconds`.
  void record(int worker, iter_t size, double seconds) {
    technique_->record(worker, size, seconds);
  }

  iter_t remaining() const { return lp_.n - next_start_; }
  iter_t steps() const { return step_; }
  const loop_params& params() const { return lp_; }
  technique& rule() { return *technique_; }

 private:
  technique_ptr technique_;
  loop_params lp_;
  double max_power_ = 1.0;  // of lp_.powers: VP_k relative to it, without a scan per chunk
  iter_t next_start_ = 0;
  iter_t step_ = 0;
};

}  // namespace selfsched
