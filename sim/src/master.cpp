// master: one master actor serves every worker. A worker sends a request
// (with the previous chunk's time), the master works claim_seconds, asks the
// scheduler for the worker's next chunk and answers. The previous chunk's
// results go first, to a sink on the master's host that takes them one at a
// time (worker.cpp's results_actor): short requests go eagerly, bulk results
// by rendezvous, as MPI moves them, and both share the master's link.
//
// rma: a claim is one fetch-and-add at the window owner (rank 0's host):
// the window actor there serialises them, atomic_seconds each, and the
// answer is the step whose chunk the worker computes itself (the
// technique's next chunk in claim order, as the runtime's chunk_plan).
// Requests carry 8 bytes and no timing or results. The window serves as
// the master does, at other costs, so one loop models both.
#include <memory>

#include "master.hpp"

namespace selfsched::sim::detail {

// The only master: serves every worker from the scheduler, claim_seconds a
// request. Under rma the window owner in its place: each request is a
// fetch-and-add, atomic_seconds, answered with 8 bytes, no timing learned
// (rma takes fixed techniques only). With losses (master only) it also
// re-executes (rDLB): a worker that finds no new chunk gets a copy of the
// oldest chunk not yet finished; the first copy to finish counts.
void master_actor(world* w) {
  sg4::Mailbox* box = own_mailbox(master_box(0));
  const bool rma = w->run.via == transport::rma;
  const double service_seconds = rma ? w->run.atomic_seconds : w->run.claim_seconds;
  const double answer_bytes = rma ? atomic_bytes : w->run.request_bytes;
  const bool resilient = !w->platform.losses.empty();
  while (w->active > 0) {
    std::unique_ptr<message> req(box->get<message>());
    const auto k = static_cast<std::size_t>(req->worker);
    if (resilient && w->dead[k]) continue;  // sent before its host went down
    if (req->what == message::finished_note) {
      w->rdlb_finished(req->finished_start);
      continue;
    }
    const double from = sg4::Engine::get_clock();
    sg4::this_actor::execute(service_seconds * w->platform.flops);
    if (!rma) w->record(req->worker, req->done, req->seconds);
    auto* ans = new message{message::answer, req->worker};
    ans->c = w->next(req->worker);
    ans->sequence = w->out.chunks - 1;  // chunks go out in order: the k-th is chunk k
    if (resilient) ans->c = w->rdlb(req->worker, ans->c);
    if (ans->c.size == 0) --w->active;
    w->send(mailbox(worker_box(req->worker)), ans, answer_bytes);
    w->master_busy[0] += sg4::Engine::get_clock() - from;
  }
}

}  // namespace selfsched::sim::detail
