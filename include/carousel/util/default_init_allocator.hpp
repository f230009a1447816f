// An allocator whose value-less construction leaves plain values uninitialised, so that
// vector::resize on a large array of numbers that are all written next does not first
// write zeros to every page (which makes the whole array resident at once).
#pragma once

#include <memory>
#include <new>
#include <utility>

namespace carousel {

template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialised: no zeros for plain values
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

}  // namespace carousel
