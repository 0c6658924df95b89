// What several GUI tests build on: a one-model α/β table (model "newnet" on an A100: α 250 µs,
// β 5000 µs) written into a temporary folder, for importing a profile the project owns inline.
#pragma once

#include <QFile>
#include <QString>
#include <QTemporaryDir>

namespace servescope::test {

inline QString write_alphabeta_csv(const QTemporaryDir& dir) {
  const auto path = dir.filePath(QStringLiteral("ab.csv"));
  QFile f(path);
  if (f.open(QIODevice::WriteOnly)) f.write("model,gpu,alpha_us,beta_us,slo_ms\nnewnet,A100,250,5000,50\n");
  return path;
}

}  // namespace servescope::test
