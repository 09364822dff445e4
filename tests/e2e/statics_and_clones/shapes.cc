// shapes.cc - C++ functions with mangled names: a namespace, a class and a template.
#include "lk.h"

namespace shapes {

struct Box {
    u32 w, h;
    LK_NOINLINE u32 area() const { return w * h; }
};

template <u32 N> LK_NOINLINE u32 spread(u32 v)
{
    return (v * N) ^ (v >> N);
}

LK_NOINLINE u32 grow(const Box &b, u32 v)
{
    return b.area() + spread<3>(v) + spread<5>(v);
}

} // namespace shapes

extern "C" u32 shapes_work(u32 v)
{
    shapes::Box b{v & 7u, (v >> 3) & 7u};
    return shapes::grow(b, v);
}
