// main() of the TLM test binaries. SystemC elaborates once per process, so when more than one
// test is selected each runs in a child process of its own (ctest already runs one per process);
// SystemC warnings and errors become exceptions, i.e. test failures.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <systemc>
#include <vector>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DISPLAY | sc_core::SC_THROW);
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_THROW);
  std::vector<std::string> selected;
  const auto* unit = ::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit->total_test_suite_count(); ++i) {
    const auto* s = unit->GetTestSuite(i);
    for (int j = 0; j < s->total_test_count(); ++j)
      selected.push_back(std::string(s->name()) + "." + s->GetTestInfo(j)->name());
  }
  // A filter given by hand (ctest passes one test name) runs in this process.
  const bool unfiltered = ::testing::GTEST_FLAG(filter) == "*" && !::testing::GTEST_FLAG(list_tests);
  if (!unfiltered || selected.size() <= 1 || std::getenv("AXCORE_TLM_CHILD")) return RUN_ALL_TESTS();
  int failed = 0;
  for (const auto& t : selected) {
    const pid_t pid = fork();
    if (pid == 0) {
      setenv("AXCORE_TLM_CHILD", "1", 1);
      const std::string filter = "--gtest_filter=" + t;
      execl("/proc/self/exe", argv[0], filter.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      ++failed;
      std::fprintf(stderr, "[ FAILED ] %s (own process)\n", t.c_str());
    }
  }
  std::printf("%zu tests in their own processes, %d failed\n", selected.size(), failed);
  return failed ? 1 : 0;
}
