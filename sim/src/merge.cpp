// Cluster mode's merge at the loop's end (run_spec::merge_bytes): worker k
// diffs the pages it wrote, then the workers pass blocks round a ring, p - 1
// steps, each applying the block it received (a ring all-gather: every link
// carries each block once).
#include <cmath>
#include <string>

#include "merge.hpp"

namespace selfsched::sim::detail {
namespace {

void merge_actor(world* w, int k, const std::vector<double>* wrote) {
  const int p = static_cast<int>(wrote->size());
  const auto pages = [&](int q) { return std::ceil((*wrote)[static_cast<std::size_t>(q)] / 4096.0); };
  const double page_flops = w->run.merge_page_seconds * w->platform.flops;
  sg4::this_actor::execute(pages(k) * page_flops);
  static int block;  // the payload: only the bytes' size matters here
  sg4::Mailbox* mine = own_mailbox("merge-" + std::to_string(k));
  sg4::Mailbox* next = sg4::Mailbox::by_name("merge-" + std::to_string((k + 1) % p));
  for (int step = 0; step < p - 1; ++step) {
    const int sent = (k - step + p) % p, received = (k - step - 1 + p) % p;
    sg4::CommPtr out = next->put_async(&block, static_cast<std::uint64_t>((*wrote)[static_cast<std::size_t>(sent)]));
    mine->get<int>();
    sg4::this_actor::execute(pages(received) * page_flops);
    out->wait();
  }
}

}  // namespace

void run_merge(sg4::Engine& engine, world* w, const std::vector<sg4::Host*>& workers) {
  if (w->run.merge_bytes <= 0 || w->platform.workers <= 1) return;
  // Every worker reaches the loop's end barrier before the merge begins.
  std::vector<double> wrote;
  for (iter_t ran : w->iterations_run) wrote.push_back(w->run.merge_bytes * static_cast<double>(ran));
  const double loop_end = sg4::Engine::get_clock();
  for (int k = 0; k < w->platform.workers; ++k)
    sg4::Actor::create("merge-" + std::to_string(k), workers[static_cast<std::size_t>(k)], merge_actor, w, k, &wrote);
  engine.run();
  w->out.merge_seconds = sg4::Engine::get_clock() - loop_end;
  w->out.makespan += w->out.merge_seconds;
}

}  // namespace selfsched::sim::detail
