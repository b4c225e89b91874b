#include "regfile.hpp"

#include <stdexcept>

namespace axcore::tlm {

RegFile::RegFile(std::span<const spec::RegisterInfo> table) {
  for (const auto& r : table) entries_.push_back(Entry{r, {}, {}, {}});
  reset();
}

void RegFile::reset() {
  for (auto& e : entries_) {
    const std::size_t n = e.info.memory ? e.info.bytes / 4 : std::size_t{e.info.count} * e.info.words;
    e.data.assign(n, e.info.memory ? 0 : e.info.reset);
  }
}

RegFile::Entry* RegFile::find(uint32_t offset, uint32_t& index, uint32_t& word) {
  for (auto& e : entries_) {
    if (offset < e.info.offset) continue;
    const uint32_t rel = offset - e.info.offset;
    if (e.info.memory) {
      if (rel < e.info.bytes && rel % 4 == 0) {
        index = 0;
        word = rel / 4;
        return &e;
      }
      continue;
    }
    const uint32_t i = rel / e.info.stride, w = (rel % e.info.stride) / 4;
    if (i < e.info.count && rel % 4 == 0 && w < e.info.words) {
      index = i;
      word = w;
      return &e;
    }
  }
  return nullptr;
}

bool RegFile::read(uint32_t offset, uint32_t& value) {
  uint32_t i = 0, w = 0;
  Entry* e = find(offset, i, w);
  if (!e) return false;
  if (e->info.access == spec::Access::WO)
    value = 0;
  else if (e->rd)
    value = e->rd(i, w);
  else
    value = e->data[e->info.memory ? w : i * e->info.words + w];
  return true;
}

bool RegFile::write(uint32_t offset, uint32_t value) {
  uint32_t i = 0, w = 0;
  Entry* e = find(offset, i, w);
  if (!e) return false;
  uint32_t& cell = e->data[e->info.memory ? w : i * e->info.words + w];
  switch (e->info.access) {
    case spec::Access::RW: cell = value & e->info.field_mask; break;
    case spec::Access::W1C: cell &= ~value; break;
    case spec::Access::RO:
    case spec::Access::WO:
    case spec::Access::RC: break;
  }
  if (e->wr) e->wr(i, w, value);
  return true;
}

RegFile::Entry& RegFile::named(std::string_view name) {
  for (auto& e : entries_)
    if (e.info.name == name) return e;
  throw std::logic_error("RegFile: no register " + std::string(name));
}
void RegFile::on_read(std::string_view name, ReadFn f) { named(name).rd = std::move(f); }
void RegFile::on_write(std::string_view name, WriteFn f) { named(name).wr = std::move(f); }
uint32_t& RegFile::at(std::string_view name, uint32_t index, uint32_t word) {
  Entry& e = named(name);
  return e.data.at(e.info.memory ? word : index * e.info.words + word);
}
std::span<uint32_t> RegFile::words(std::string_view name, uint32_t index) {
  Entry& e = named(name);
  if (e.info.memory) return e.data;
  return std::span<uint32_t>(e.data).subspan(index * e.info.words, e.info.words);
}

}  // namespace axcore::tlm
