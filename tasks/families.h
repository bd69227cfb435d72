// Registration hooks of the task families (one file each); registry.cc calls them in order.
#pragma once
#include <vector>

#include "tasks/task.h"

namespace tg::tasks {
void register_pathological(std::vector<TaskInfo>& r);  // pathological.cc (000 §3.1)
void register_krueger(std::vector<TaskInfo>& r);       // krueger.cc (004 §3.3)
void register_ollivier(std::vector<TaskInfo>& r);      // ollivier_tasks.cc (003 §7)
void register_text(std::vector<TaskInfo>& r);          // text.cc
void register_image_sets(std::vector<TaskInfo>& r);    // image_sets.cc (000 §3.5)
void register_reaching(std::vector<TaskInfo>& r);      // reaching.cc (000 §3.4)
void register_video(std::vector<TaskInfo>& r);         // video.cc (000 §3.2, §3.6)
void register_speech(std::vector<TaskInfo>& r);        // phonemes.cc (004 §3.2)
void register_speech_frames(std::vector<TaskInfo>& r); // speech_frames.cc (000 §4.5, Table 4.1)
void register_gated(std::vector<TaskInfo>& r);         // gated_tasks.cc (004 §1.7, §1.8, §3.5)
}  // namespace tg::tasks
