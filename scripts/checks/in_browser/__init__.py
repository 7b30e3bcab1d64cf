"""Checks that run in headless Chromium, a module per group, called by test_web.py,
test_web_own_browsers.py, test_rooms_page_drawing.py and test_tour.py (their fixtures and tools come from scripts/proteinar_testing):

  page_glb_decoding  check_page_decodes_glb(browser, base, check): the page's GLB decoder
  design_screen  check_design_screen(browser, base, check, canvas, shot): the Design screen
  android_ar_checks  check_android_ar(base, check, keep_csp, canvas): WebXR immersive-ar, Scene Viewer
  capture_checks  check_capture(base, check, keep_csp): Camera, Record, sharing, AR photos and progress
               in words, on a phone of its own
  gesture_help_checks  check_gestures_and_help(base, check, shots, keep_csp): twist, the style sheet,
               Hide hydrogens, search paging, library Previous/Next, Help on every screen, 44 px targets
  offline_checks  check_offline(...): the manifest, the service worker, offline reloads, the offline
               banner and Keep offline (the network cut for the page and the worker)
  open_any_entry_checks  check_open_any_entry(binary, check, shots, keep_csp): any entry without an
               account, Add to the library, a busy server's retries
  history_checks, room_checks, tile_checks  run(check, ...): test_rooms_page_drawing's history slider and camera
               markers; AR drawing along a finger's ray, the hue slider, Locate me, a room's place,
               notes pinned to residues; the map with tiles from the server's own origin
  screen_audit  AUDIT, SCROLL_DOWN, problems(): what test_tour measures on every screen"""
