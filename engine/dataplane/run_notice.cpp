#include "engine/dataplane/run_notice.h"

#include "model/core/text.h"

namespace servescope::engine {

std::string_view to_string(NoticeKind kind) {
  switch (kind) {
    case NoticeKind::WorkerLost:
      return "worker-lost";
    case NoticeKind::WorkerLate:
      return "worker-late";
    case NoticeKind::WorkerBack:
      return "worker-back";
    case NoticeKind::FlushBegan:
      return "flush-began";
    case NoticeKind::PlanSwitched:
      return "plan-switched";
    case NoticeKind::Refused:
      return "refused";
  }
  return "?";
}

std::optional<NoticeKind> parse_notice_kind(std::string_view text) {
  return enum_from_string<NoticeKind>(text, kNoticeKindCount);
}

bool is_trouble(NoticeKind kind) {
  return kind == NoticeKind::WorkerLost || kind == NoticeKind::WorkerLate || kind == NoticeKind::Refused;
}

}  // namespace servescope::engine
