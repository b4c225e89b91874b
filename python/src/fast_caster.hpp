// pybind11's caster for the builder's handle types, with the type's registration looked up once.
// pybind11 2.10's own caster (type_caster_base) looks the C++ type up in its registry for every
// argument it converts and every result it returns: two hash-table lookups keyed by the type's
// mangled name, which were ~11% of a Python build (perf). This one is type_caster_base with that
// lookup made once per type; loading and casting are pybind11's own (type_caster_generic). Every
// binding file includes it (through bindings.hpp) before it binds, so each type has one caster.
#pragma once

#include <pybind11/pybind11.h>

#include <axcore/compiler/script.hpp>

namespace pybind11::detail {

template <class T>
class cached_type_caster : public type_caster_generic {
  static_assert(!std::is_polymorphic_v<T>, "a polymorphic type needs pybind11's lookup of the most derived type");

 public:
  static constexpr auto name = const_name<T>();

  // The registration of T (made when the module binds it, before any call converts one).
  static const type_info* registered() {
    static const type_info* info = nullptr;
    if (!info) info = get_type_info(typeid(T), /*throw_if_missing=*/true);
    return info;
  }

  cached_type_caster() : type_caster_generic(registered()) {}

  static handle cast(const T& src, return_value_policy policy, handle parent) {
    if (policy == return_value_policy::automatic || policy == return_value_policy::automatic_reference)
      policy = return_value_policy::copy;
    return cast(&src, policy, parent);
  }
  static handle cast(T&& src, return_value_policy, handle parent) {
    return cast(&src, return_value_policy::move, parent);
  }
  static handle cast(const T* src, return_value_policy policy, handle parent) {
    return type_caster_generic::cast(
        src, policy, parent, registered(), [](const void* p) -> void* { return new T(*static_cast<const T*>(p)); },
        [](const void* p) -> void* { return new T(std::move(*const_cast<T*>(static_cast<const T*>(p)))); });
  }

  template <typename U>
  using cast_op_type = detail::cast_op_type<U>;
  operator T*() { return static_cast<T*>(value); }  // NOLINT(google-explicit-constructor): pybind11's interface
  operator T&() {                                   // NOLINT(google-explicit-constructor)
    if (!value) throw reference_cast_error();
    return *static_cast<T*>(value);
  }
};

// Not polymorphic (no derived type to look up at a cast), held by pybind11's default holder. (A::Reg
// keeps pybind11's caster: its copy is the implicit one its IR-store assignment deprecates.)
template <>
class type_caster<axcore::compiler::A::Value> : public cached_type_caster<axcore::compiler::A::Value> {};
template <>
class type_caster<axcore::compiler::A::BufferHandle> : public cached_type_caster<axcore::compiler::A::BufferHandle> {};
template <>
class type_caster<axcore::compiler::A::StreamHandle> : public cached_type_caster<axcore::compiler::A::StreamHandle> {};
template <>
class type_caster<axcore::compiler::A::Acc> : public cached_type_caster<axcore::compiler::A::Acc> {};
template <>
class type_caster<axcore::compiler::A::Func> : public cached_type_caster<axcore::compiler::A::Func> {};
template <>
class type_caster<axcore::compiler::A::Module> : public cached_type_caster<axcore::compiler::A::Module> {};

}  // namespace pybind11::detail

namespace axcore::python {

// Whether h is a T (the builder's handle types above): one type check, no registry lookup.
template <class T>
bool is(pybind11::handle h) {
  return PyObject_TypeCheck(h.ptr(), pybind11::detail::cached_type_caster<T>::registered()->type) != 0;
}

}  // namespace axcore::python
