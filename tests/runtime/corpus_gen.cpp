// Writes the bundle fuzz corpus seeds: tests/runtime/corpus/{sample,dispatch,minimal,graph_only}.axb.
#include <filesystem>
#include <iostream>

#include "axcore/runtime/bundle.hpp"
#include "sample_bundle.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: runtime_bundle_corpus_gen DIR\n";
    return 2;
  }
  using namespace axcore::runtime;
  const std::filesystem::path dir = argv[1];
  save_bundle(dir / "sample.axb", testing_support::sample_bundle());
  save_bundle(dir / "dispatch.axb", testing_support::sample_dispatch_bundle());
  save_bundle(dir / "minimal.axb", Bundle{});
  Bundle g = testing_support::sample_bundle();
  g.txn.clear();
  g.commands.clear();
  g.params.clear();
  save_bundle(dir / "graph_only.axb", g);
  return 0;
}
