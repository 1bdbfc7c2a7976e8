// One trial's state staged in a block of memory of its own: the "shared" GPU program keeps a small
// trial (the Santos and Zdornov two-switch scenarios, leaf-spine, a 64-node tree at most) in a thread
// block's shared memory across all the cycles of a call, and the CPU runs the same program on a
// heap buffer in the tests (kernels/launch/engine_variant_program.hpp, staged_trial_program).
//
// The staged view is the batch's view with T = 1: every per-trial column of trial t (the STATE, CC
// and TRIAL rows of kernels/state/state_columns.def) is copied to `base`, element i of the batch's
// at(i, t, T) to element i of the stage, and the view's pointer for that row is moved there. The
// kernels index every per-trial array with at(element, trial, T) and read the trial's own inputs
// (its seed, its destinations) from TRIAL rows, so the staged view with trial 0 computes exactly
// what the batch's view computes for trial t. Shared tables (NET and SHARED rows) stay where they
// are, and so do rows whose group is off (one element that no kernel path reads).
#pragma once
#include <cstdint>
#include <new>

#include "kernels/common/index.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// Elements per trial of each per-trial row (0 = not staged: a row whose group is off), and the
// bytes one trial's stage takes. The engine fills it from its columns (host/engine/state_columns.hpp).
struct TrialStage {
#define SATURN_STATE_COLUMN(name, type, extent, group, init) int32_t name;
#define SATURN_CC_COLUMN(name, type, extent, group, init) int32_t name;
#define SATURN_TRIAL_COLUMN(name, type, extent, init) int32_t name;
#include "kernels/state/state_columns.def"
  int64_t bytes;  // the staged rows, each from a 16-byte boundary (a Packet is one 16-byte load)
};

SATURN_INLINE int64_t stage_aligned(int64_t bytes) { return (bytes + 15) & ~int64_t{15}; }

// Bytes of a stage with these rows (TrialStage::bytes).
inline int64_t stage_bytes(const TrialStage& n) {
  int64_t b = 0;
#define SATURN_STATE_COLUMN(name, type, extent, group, init) b += stage_aligned(int64_t{n.name} * int64_t{sizeof(type)});
#define SATURN_CC_COLUMN(name, type, extent, group, init) b += stage_aligned(int64_t{n.name} * int64_t{sizeof(type)});
#define SATURN_TRIAL_COLUMN(name, type, extent, init) b += stage_aligned(int64_t{n.name} * int64_t{sizeof(type)});
#include "kernels/state/state_columns.def"
  return b;
}

// Constructs at `where` the view of a stage at `base` (16-byte aligned, n.bytes long): the batch's
// view with T = 1 and every staged row's pointer moved into the stage, in list order.
SATURN_INLINE EngineView* stage_view(const EngineView& v, const TrialStage& n, char* base, void* where) {
  EngineView* s = new (where) EngineView(v);
  s->model.trials = 1;
  int64_t off = 0;
#define SATURN_STATE_COLUMN(name, type, extent, group, init)                                  \
  if (n.name > 0) {                                                                         \
    s->state.name = reinterpret_cast<type*>(base + off);                                    \
    off += stage_aligned(int64_t{n.name} * int64_t{sizeof(type)});                          \
  }
#define SATURN_CC_COLUMN(name, type, extent, group, init)                                     \
  if (n.name > 0) {                                                                         \
    s->state.cc.name = reinterpret_cast<type*>(base + off);                                 \
    off += stage_aligned(int64_t{n.name} * int64_t{sizeof(type)});                          \
  }
#define SATURN_TRIAL_COLUMN(name, type, extent, init)                                         \
  if (n.name > 0) {                                                                         \
    s->trial.name = reinterpret_cast<const type*>(base + off);                              \
    off += stage_aligned(int64_t{n.name} * int64_t{sizeof(type)});                          \
  }
#include "kernels/state/state_columns.def"
  return s;
}

// Trial t's rows into the stage (every staged row), by thread `lane` of `lanes`.
SATURN_INLINE void stage_in(const EngineView& v, const EngineView& s, const TrialStage& n, int t, int lane, int lanes) {
  const int T = v.model.trials;
#define SATURN_STATE_COLUMN(name, type, extent, group, init) \
  for (int64_t i = lane; i < n.name; i += lanes) s.state.name[i] = v.state.name[at(i, t, T)];
#define SATURN_CC_COLUMN(name, type, extent, group, init) \
  for (int64_t i = lane; i < n.name; i += lanes) s.state.cc.name[i] = v.state.cc.name[at(i, t, T)];
#define SATURN_TRIAL_COLUMN(name, type, extent, init) \
  for (int64_t i = lane; i < n.name; i += lanes) const_cast<type*>(s.trial.name)[i] = v.trial.name[at(i, t, T)];
#include "kernels/state/state_columns.def"
}

// The stage's state back into trial t (the TRIAL rows are inputs: never written).
SATURN_INLINE void stage_out(const EngineView& v, const EngineView& s, const TrialStage& n, int t, int lane, int lanes) {
  const int T = v.model.trials;
#define SATURN_STATE_COLUMN(name, type, extent, group, init) \
  for (int64_t i = lane; i < n.name; i += lanes) v.state.name[at(i, t, T)] = s.state.name[i];
#define SATURN_CC_COLUMN(name, type, extent, group, init) \
  for (int64_t i = lane; i < n.name; i += lanes) v.state.cc.name[at(i, t, T)] = s.state.cc.name[i];
#include "kernels/state/state_columns.def"
}

}  // namespace saturn
