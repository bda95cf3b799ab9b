// RunBounded (common/base/bounded_call.h): a call that returns, one that
// throws, and one that blocks past its deadline and is abandoned with what it
// owns kept alive until it returns.
#include <atomic>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

#include <catch2/catch.hpp>

#include "common/base/bounded_call.h"

using namespace gz;
using namespace std::chrono_literals;

TEST_CASE("a call that returns in time: true, and its effects are visible") {
  auto out = std::make_shared<int>(0);
  CHECK(RunBounded([out] { *out = 42; }, 10s));
  CHECK(*out == 42);
}

TEST_CASE("a call that throws: its exception reaches the caller") {
  CHECK_THROWS_WITH(RunBounded([] { throw std::runtime_error("the store is gone"); }, 10s), "the store is gone");
}

TEST_CASE("a call blocked past its deadline is abandoned: false, its captures alive until it returns") {
  auto release = std::make_shared<std::promise<void>>();
  std::shared_future<void> released = release->get_future().share();
  auto owned = std::make_shared<int>(7);
  std::weak_ptr<int> watch = owned;
  auto finished = std::make_shared<std::atomic<bool>>(false);
  CHECK_FALSE(RunBounded([released, owned, finished] {
    released.wait();  // blocked like a wedged store call
    *finished = true;
  }, 50ms));
  owned.reset();
  CHECK_FALSE(watch.expired());  // the abandoned call still owns it
  CHECK_FALSE(*finished);
  release->set_value();
  for (int i = 0; i < 10000 && !watch.expired(); ++i) std::this_thread::sleep_for(1ms);
  CHECK(*finished);
  CHECK(watch.expired());  // released by the call itself once it returned
}
