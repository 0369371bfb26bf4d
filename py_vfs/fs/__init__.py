"""The file system over the disk and mounted folders: the resolver, the sides a change runs on
(the disk, a folder), the POSIX rules written once over them (namespace, files, metadata),
copies, search and steps."""
