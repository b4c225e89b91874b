// The order in which a DPU block pops the streams of one feeder (guide §8.3): one feeder delivers
// the streams of its blocks one after the other, so a block may pop several of them only all of
// the first, then all of the second; popping them interleaved is the guide's undefined pattern,
// refused here at the pop that goes back to a stream already left (docs/compiler.md "Several
// streams on one feeder").
#include <algorithm>

#include "lower_internal.hpp"

namespace axcore::compiler::lower_detail {
namespace {

using Runs = std::vector<PopRun>;

// Appends `r` to `out`, merging it into the last run when it pops the same stream.
void append(Runs& out, const PopRun& r) {
  if (r.count == 0) return;
  if (!out.empty() && out.back().stream == r.stream)
    out.back().count += r.count;
  else
    out.push_back(r);
}

// `body` run `times` times. Two copies show any interleave (a body of several runs pops its first
// stream again after its last), so a body of one run is scaled and a longer one repeated at most
// twice: the caller refuses it anyway.
Runs repeat(const Runs& body, uint64_t times) {
  Runs out;
  if (body.size() == 1) {
    out = body;
    out[0].count *= times;
    return out;
  }
  for (uint64_t k = 0; k < std::min<uint64_t>(times, 2); ++k)
    for (const PopRun& r : body) append(out, r);
  return out;
}

void expr_runs(const Expr& e, const SourceLoc& at, const FeederOf& on_feeder, Runs& out) {
  if (!e) return;
  if (e->kind == ExprKind::Pop && on_feeder(e->stream.get())) {
    append(out, {e->stream.get(), 1, e->loc.known() ? e->loc : at});
    return;
  }
  for (const auto& a : e->args) expr_runs(a, at, on_feeder, out);  // the operands in the order they pop
}

Runs list_runs(const std::vector<Stmt>& list, const FeederOf& on_feeder) {
  Runs out;
  for (const auto& s : list) {
    if (s->kind == StmtKind::For) {
      for (const PopRun& r :
           repeat(list_runs(s->body, on_feeder), static_cast<uint64_t>(std::max<int64_t>(s->extent, 0))))
        append(out, r);
    } else if (s->kind == StmtKind::Block) {  // A.init
      for (const PopRun& r : list_runs(s->body, on_feeder)) append(out, r);
    } else {
      expr_runs(s->value, s->loc, on_feeder, out);
    }
  }
  return out;
}

}  // namespace

std::vector<PopRun> feeder_pops(const StmtNode& dpu, const std::vector<Loop>& outer, const FeederOf& on_feeder,
                                const std::string& feeder) {
  Runs init, body;
  std::vector<Stmt> rest;
  for (const auto& s : dpu.body) {
    if (s->kind == StmtKind::Block && s->unit == Unit::Init)
      for (const PopRun& r : list_runs(s->body, on_feeder)) append(init, r);
    else if (s->kind != StmtKind::DeclReg)
      rest.push_back(s);
  }
  uint64_t iterations = 1;  // the datapath's sunk loops run the body once per element of theirs
  for (const Loop& l : outer) iterations *= static_cast<uint64_t>(std::max<int64_t>(l.extent, 0));
  Runs out = init;
  for (const PopRun& r : repeat(list_runs(rest, on_feeder), iterations)) append(out, r);
  // A stream popped again after another: the pops of the one between (y + 1) come first while the
  // feeder still delivers the earlier stream.
  for (std::size_t x = 1; x < out.size(); ++x)
    for (std::size_t y = 0; y + 1 < x; ++y)
      if (out[y].stream == out[x].stream) {
        const PopRun& a = out[y];
        const PopRun& b = out[y + 1];
        fail(b.at,
             "this DPU block pops " + b.stream->name + " besides " + a.stream->name + ", two streams of one feeder (" +
                 feeder + "), interleaved: it pops " + a.stream->name + " again after " + b.stream->name +
                 ", but the feeder delivers all of " + a.stream->name + ", then all of " + b.stream->name +
                 ", never interleaved (§8.3), so these pops read the wrong elements or stall",
             "interleave the operands upstream, in memory, and drain a single stream (§8.3), or pop all of " +
                 a.stream->name + " before the first " + b.stream->name + ".pop()");
      }
  return out;
}

}  // namespace axcore::compiler::lower_detail
