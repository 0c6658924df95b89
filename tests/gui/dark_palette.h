// A dark palette as desktops set it, for screenshots and checks that the views follow it.
#pragma once

#include <QPalette>

namespace servescope::test {

inline QPalette dark_palette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(37, 37, 38));
  p.setColor(QPalette::WindowText, QColor(220, 220, 220));
  p.setColor(QPalette::Base, QColor(24, 24, 26));
  p.setColor(QPalette::AlternateBase, QColor(45, 45, 48));
  p.setColor(QPalette::ToolTipBase, QColor(50, 50, 55));
  p.setColor(QPalette::ToolTipText, QColor(230, 230, 230));
  p.setColor(QPalette::Text, QColor(220, 220, 220));
  p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
  p.setColor(QPalette::Button, QColor(45, 45, 48));
  p.setColor(QPalette::ButtonText, QColor(220, 220, 220));
  p.setColor(QPalette::Highlight, QColor(42, 130, 218));
  p.setColor(QPalette::HighlightedText, QColor(255, 255, 255));
  p.setColor(QPalette::Mid, QColor(90, 90, 95));
  p.setColor(QPalette::Midlight, QColor(70, 70, 75));
  p.setColor(QPalette::Dark, QColor(120, 120, 125));
  p.setColor(QPalette::Light, QColor(80, 80, 85));
  return p;
}

}  // namespace servescope::test
