// A ParamSet's values on disk: an .npz archive with one array per parameter under "param/<name>"
// (the layout of `tapegrad train`'s checkpoint.npz, so a zoo run's weights load into a model built
// with the library too), plus any extra arrays the caller adds (optimizer state, a step counter).
// Written atomically (core/atomic_file.h); readable with numpy.load.
#pragma once
#include <string>
#include <vector>

#include "core/npz.h"
#include "core/params.h"

namespace tg {

void save_parameters(const std::string& path, const ParamSet& ps, std::vector<NpzEntry> extra = {});

// Sets ps's values from "param/<name>" arrays of the archive. Every parameter of ps must be there with
// its shape; a missing or mis-shaped one is a tg::Error naming the file and the parameter (nothing is
// changed then). Arrays the archive has beyond those are ignored.
void load_parameters(const std::string& path, ParamSet& ps);
void load_parameters(const NpzArchive& archive, ParamSet& ps);

}  // namespace tg
