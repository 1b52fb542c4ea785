/**
 * One table from "what a write would overwrite" to the category reported,
 * per way of writing (cp/mv/ln/install, tee, a redirection, an in-place
 * edit, a file tool). Every writer goes through it, so a protected location
 * is protected the same way whichever tool touches it.
 */
import type { WriteClass } from "./guard-paths.js";
import { type Category, DANGEROUS as D, HARDLINE as H } from "./guard-types.js";

export type Writer = "copy" | "tee" | "redirect" | "edit" | "edit-long" | "edit-perl" | "file";

type Row = Readonly<Record<Writer, Category | null>>;

const same = (c: Category): Row => ({ copy: c, tee: c, redirect: c, edit: c, "edit-long": c, "edit-perl": c, file: c });

const TABLE: Readonly<Record<Exclude<WriteClass, null>, Row>> = {
  block: { copy: H.writeBlock, tee: H.writeBlock, redirect: H.redirectBlock, edit: null, "edit-long": null, "edit-perl": null, file: H.writeBlock },
  "system-config": {
    copy: D.copySystem,
    tee: D.teeSystem,
    redirect: D.systemConfig,
    edit: D.editSystem,
    "edit-long": D.editSystemLong,
    "edit-perl": D.editSystem,
    file: D.fileSystem,
  },
  "system-file": { copy: D.copySystem, tee: D.teeSystem, redirect: D.redirectSystem, edit: null, "edit-long": null, "edit-perl": null, file: D.fileSystem },
  sensitive: {
    copy: D.copySensitive,
    tee: D.teeSystem,
    redirect: D.redirectSystem,
    edit: D.editSensitive,
    "edit-long": D.editSensitiveLong,
    "edit-perl": D.editSensitivePerl,
    file: D.fileSensitive,
  },
  hermes: { ...same(D.hermesWrite), edit: D.editHermes, "edit-long": D.editHermesLong, "edit-perl": D.editHermesPerl },
  scheduler: same(D.schedulerWrite),
  vcs: same(D.vcsWrite),
  "project-config": {
    copy: D.copyProject,
    tee: D.teeProject,
    redirect: D.redirectProject,
    edit: null,
    "edit-long": null,
    "edit-perl": null,
    file: D.copyProject,
  },
};

/** The category for `writer` writing to a location of class `cls`, or null when the location is not protected. */
export function writeCategory(cls: WriteClass, writer: Writer): Category | null {
  return cls === null ? null : TABLE[cls][writer];
}
